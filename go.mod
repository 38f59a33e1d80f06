module github.com/skillstore/skillstore

go 1.26.0

require (
	github.com/hashicorp/golang-lru/v2 v2.0.7
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/sync v0.24.0
	golang.org/x/text v0.43.0
)
