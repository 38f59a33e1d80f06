package main

import "strings"

// verbs and subjects make names and titles; every verb takes a plain "s"
// in the third person.
var verbs = strings.Fields(`review check audit draft format migrate deploy monitor summarize test plan tune
	clean build profile validate translate document triage scan label merge export import render
	forecast rank score sort split stream sync trace update upgrade archive benchmark bundle
	compile convert debug design estimate explain extract filter generate inspect lint measure`)

var subjects = strings.Fields(`terraform kubernetes helm dockerfiles invoices contracts receipts spreadsheets
	dashboards alerts incidents runbooks changelogs releases migrations schemas queries indexes
	pipelines workflows budgets forecasts reports slides emails tickets backlogs roadmaps
	interviews resumes surveys datasets notebooks models prompts embeddings logs metrics traces
	certificates secrets policies permissions invoices-pdf tables charts diagrams translations
	podcasts videos images fonts icons components stylesheets endpoints webhooks packages`)

var teams = strings.Fields(`platform data finance legal security support sales marketing design research
	mobile web infrastructure analytics operations product growth billing compliance people`)

var headings = []string{"When to use", "Before you start", "Steps", "Inputs", "Outputs", "Examples",
	"Pitfalls", "Checks", "Edge cases", "Troubleshooting", "Notes", "Conventions", "Limits",
	"Related skills", "Reporting", "Review checklist", "Background", "Configuration"}

// common are the most frequent words of the bodies, most frequent first.
var common = strings.Fields(`the a to of and for in is it that with on as be by this or when each if from
	not are at any one file step check use before after then run all new output input team change
	value field name list table report result error warning line section page document version
	review test plan build data user request source target format rule limit case note example
	default option config schema query record entry item task job stage branch commit release
	server client service cluster node region account bucket key token secret policy role scope
	date time week month total count rate cost price budget invoice order customer vendor
	summary draft final owner reviewer approver status priority label tag score rank metric
	log trace alert incident runbook dashboard chart graph image diagram slide deck email
	message ticket issue bug fix patch update upgrade migration rollback deploy pipeline
	workflow script command flag argument path folder archive bundle package module library
	function method class type interface struct field column row index cache queue stream
	batch event signal threshold window baseline sample dataset model prompt answer question`)

// syllables build the rare words of the long tail.
var syllables = strings.Fields(`ba be bi bo bu ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu
	ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo vu`)

// vocabSize is the number of distinct words of the bodies.
const vocabSize = 20_000

// vocab is common followed by made-up words of two or three syllables
// (the base-len(syllables) digits of len(syllables)+k), each distinct,
// always the same.
var vocab = func() []string {
	seen := map[string]bool{}
	var v []string
	add := func(w string) {
		if !seen[w] {
			seen[w] = true
			v = append(v, w)
		}
	}
	for _, w := range common {
		add(w)
	}
	n := len(syllables)
	for k := n; len(v) < vocabSize; k++ {
		var b strings.Builder
		for x := k; x > 0; x /= n {
			b.WriteString(syllables[x%n])
		}
		add(b.String())
	}
	return v
}()
