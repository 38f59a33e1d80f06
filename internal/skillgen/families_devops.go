package skillgen

var devopsText = `
$cloud aws=AWS{IAM roles, VPC, S3 buckets, EC2 instances, Lambda, CloudWatch, security groups} | gcp=Google Cloud{GKE, Cloud Storage, BigQuery, Cloud Run, service accounts, VPC networks, Cloud Logging} | azure=Azure{AKS, Blob Storage, Entra ID, resource groups, ARM, managed identities, network security groups} | digitalocean=DigitalOcean{Droplets, Spaces, App Platform, managed databases, VPC}
$cloud3 aws=AWS{IAM roles, VPC, S3 buckets, EC2 instances, CloudWatch} | gcp=Google Cloud{GKE, Cloud Storage, service accounts, VPC networks} | azure=Azure{AKS, Blob Storage, Entra ID, resource groups, managed identities}
$iac terraform=Terraform{HCL, terraform plan, state file, modules, providers, tfvars, workspaces} | opentofu=OpenTofu{HCL, tofu plan, state file, modules, providers, encryption of state} | pulumi=Pulumi{stacks, pulumi preview, programs, component resources, stack references}
$lang python=Python{pip, virtualenv, pytest, type hints, pyproject.toml} | go=Go{go modules, goroutines, go test, interfaces, go vet} | typescript=TypeScript{npm, tsconfig, type checking, ES modules} | javascript=JavaScript{npm, Node.js, ES modules, promises, package.json} | java=Java{Maven, Gradle, JUnit, JVM, Spring} | rust=Rust{cargo, crates, borrow checker, clippy} | ruby=Ruby{Bundler, gems, RSpec, Rake} | csharp=C#{.NET, NuGet, xUnit, async/await, solution files} | kotlin=Kotlin{Gradle, coroutines, JVM, Ktor} | php=PHP{Composer, PHPUnit, Laravel, FPM} | swift=Swift{Swift Package Manager, Xcode, XCTest} | cpp=C++{CMake, compilers, undefined behaviour, sanitizers, headers}
$ci github-actions=GitHub Actions{workflow YAML, runners, reusable actions, repository secrets, matrix builds} | gitlab-ci=GitLab CI{.gitlab-ci.yml, runners, stages, artifacts, CI variables} | jenkins=Jenkins{Jenkinsfile, agents, declarative pipelines, plugins} | circleci=CircleCI{orbs, config.yml, workflows, resource classes} | buildkite=Buildkite{agents, pipeline.yml, steps, plugins} | azure-pipelines=Azure Pipelines{azure-pipelines.yml, stages, agent pools, service connections}
$k8s eks=Amazon EKS{node groups, IAM roles for service accounts, AWS load balancer controller} | gke=GKE{node pools, Autopilot, workload identity} | aks=AKS{node pools, Azure CNI, managed identities} | openshift=OpenShift{routes, projects, security context constraints, operators} | k3s=k3s{single-node clusters, edge devices, Traefik} | kubernetes=Kubernetes{kubectl, namespaces, pods, nodes, deployments}

=devops
gloss deployment, rollback, uptime, latency, error budget, SLO, on-call, pager, blast radius, canary, blue-green, infrastructure, environment, staging, production, config drift, least privilege, observability, metrics, alerts, logs, traces, load balancer, autoscaling, capacity, incident, change window, runbook, idempotent, immutable infrastructure, GitOps, pipeline, artifact, container, cluster, node, region, availability zone, failover, backup, restore, secrets, certificates, DNS, TLS, health check, readiness, throughput, SRE
code bash
	set -euo pipefail
	kubectl get pods -A --field-selector=status.phase!=Running
	kubectl describe pod "$POD" -n "$NS" | tail -n 30
	kubectl logs "$POD" -n "$NS" --previous --tail=200
end
code yaml
	# values are examples; adjust names, limits and labels
	resources:
	  requests: {cpu: 250m, memory: 256Mi}
	  limits: {memory: 512Mi}
	readinessProbe:
	  httpGet: {path: /healthz, port: 8080}
	  periodSeconds: 10
end

# iac-review
slot tool $iac
slot cloud $cloud
name {tool}-{cloud}-review
name review-{tool}-{cloud}
name {cloud}-{tool}-reviewer
title Reviewing {tool} changes for {cloud}
title {tool} plan review ({cloud})
desc Reviews {tool} changes that target {cloud} before they are applied, flagging over-broad IAM, public storage, missing tags and resources that would be destroyed and recreated.
desc Audits {tool} code for {cloud} infrastructure: security misconfigurations, cost surprises, naming and tagging rules, and risky replacements in the plan.
desc Checks infrastructure-as-code written with {tool} for {cloud} against security and reliability best practices.
use Use when the user asks to review a {tool} pull request, check a plan before apply, or audit what an infrastructure change will do in {cloud}.
use Use when someone shares {tool} files or plan output for {cloud} and wants to know whether it is safe to merge.
step Get the plan: run §{tool:v}§ output or ask for it, and list every resource that is created, changed, replaced or destroyed.
step Flag replacements and deletions of stateful {cloud} resources first; they can lose data.
step Check identity and access: wildcards in policies, {cloud:v} with admin rights, keys in variables.
step Check network exposure: public endpoints, open security rules, storage readable by anyone.
step Check tags, naming, regions and cost-relevant sizes against the team conventions.
step Write the review as a list ordered by severity, each item with the file, the line and a fix.
note A clean plan does not mean a safe change: provider upgrades and moved blocks can hide replacements.
note Never paste state files into chat; they can hold secrets in plain text.
vocab plan output, apply, drift, tags, naming conventions, public access, encryption at rest, destroy, replacement, policy as code, tfsec, checkov, OPA, least privilege
code bash
	terraform init -input=false
	terraform plan -out=plan.bin
	terraform show -json plan.bin | jq -r '.resource_changes[] | select(.change.actions != ["no-op"]) | "\(.change.actions) \(.address)"'
end

# iac-module
slot tool terraform=Terraform{HCL, module registry, variables, outputs} | pulumi=Pulumi{component resources, TypeScript programs, stack outputs} | opentofu=OpenTofu{HCL, module sources, variables}
slot resource vpc=VPC network{subnets, route tables, NAT gateway, CIDR ranges} | k8s-cluster=Kubernetes cluster{node pools, control plane, cluster autoscaler} | database=managed database{read replicas, parameter groups, automated backups} | bucket=storage bucket{lifecycle rules, versioning, bucket policy} | cdn=CDN{cache behaviours, origin, TLS certificate} | dns-zone=DNS zone{records, delegation, DNSSEC} | load-balancer=load balancer{listeners, target groups, health checks} | iam=IAM roles and policies{trust policy, permission boundaries, service accounts} | queue=message queue{dead-letter queue, visibility timeout, retention} | function=serverless function{handler, triggers, cold starts, memory size}
slot cloud $cloud3
name {tool}-{cloud}-{resource}-module
name {cloud}-{resource}-{tool}
name {resource}-module-{cloud}
title A reusable {tool} module for a {cloud} {resource}
title {resource} on {cloud} with {tool}
desc Scaffolds a reusable {tool} module that provisions a {resource} on {cloud}, with sensible defaults, input validation and documented outputs.
desc Writes and refactors {tool} code for a {cloud} {resource}: variables, outputs, examples and tests for the module.
use Use when the user wants to create a {resource} on {cloud} as code, turn copy-pasted {tool} into a module, or standardize how teams provision a {resource}.
use Use when asked for infrastructure code for a {resource} in {cloud} or for a module other teams can reuse.
step Ask which environments will use the module and what must differ between them.
step Define inputs with types, defaults and validation; keep the number of required inputs small.
step Write the {resource} resources with {resource:v} and {resource:v} set explicitly rather than left to provider defaults.
step Expose outputs other modules need, and nothing else.
step Add an example that calls the module and a test that plans it.
step Document inputs and outputs in the module README.
vocab module interface, inputs, outputs, semantic versioning, examples folder, terratest, pre-commit hooks, tagging, provider version pinning
code hcl
	variable "name" {
	  type        = string
	  description = "Prefix for every resource"
	  validation {
	    condition     = can(regex("^[a-z][a-z0-9-]{2,30}$", var.name))
	    error_message = "Use 3-31 lowercase letters, digits or hyphens."
	  }
	}
end

# iac-state
slot task drift=drift detection{drift, refresh, out-of-band changes, console edits} | import=importing existing resources{import blocks, resource addresses, generated config} | refactor=moving and renaming resources in state{moved blocks, state mv, addresses} | lock=state locking problems{lock table, force-unlock, concurrent runs} | backend=state backend migration{remote backend, state bucket, encryption}
slot tool $iac
name {tool}-{task}
name {tool}-state-{task}
title {tool}: {task}
desc Helps with {task} in {tool}: finding what differs between code, state and the real infrastructure, and fixing it without destroying anything.
desc Guides {task} for {tool} projects safely, with a backup of the state first and a plan that shows no unintended changes.
use Use when the user mentions {task:v} or {task:v} in a {tool} project, or when a plan shows changes nobody made in code.
use Use when a {tool} state is out of sync, locked, or needs restructuring.
step Back up the current state before any command that writes it.
step Run a plan and classify each difference: intended, out-of-band, or an artefact of refactoring.
step Apply the fix for {task} in the smallest steps that keep the plan clean.
step Re-run the plan until it shows no changes, and record what was done.
note State commands are not reviewed like code: pair with someone for anything touching production.
vocab state file, remote state, plan, refresh-only, terraform import, state rm, backups, locking

# k8s-manifest
slot workload deployment=Deployment{replicas, rolling update, pod template} | statefulset=StatefulSet{persistent volumes, ordinal pods, headless service} | cronjob=CronJob{schedule, concurrency policy, job history} | daemonset=DaemonSet{one pod per node, tolerations, node selectors} | ingress=Ingress{host rules, TLS secret, ingress controller} | service=Service{ClusterIP, NodePort, LoadBalancer, selectors} | hpa=HorizontalPodAutoscaler{target CPU, custom metrics, min and max replicas} | network-policy=NetworkPolicy{ingress rules, egress rules, namespace selectors} | configmap=ConfigMap and Secret{environment variables, mounted files, secret rotation} | job=Job{backoff limit, completions, parallelism}
slot pack yaml=plain YAML{kubectl apply, kustomization-free manifests} | helm=Helm chart{values.yaml, templates, chart versions, helm upgrade} | kustomize=Kustomize{overlays, bases, patches}
name k8s-{workload}-{pack}
name {pack}-{workload}-manifests
name kubernetes-{workload}-{pack}
title Kubernetes {workload} as {pack}
title Writing a {workload} ({pack})
desc Writes and lints Kubernetes {workload} manifests packaged as {pack}, with resource requests, probes, labels and security context set correctly.
desc Generates production-ready {workload} definitions for Kubernetes using {pack}, and explains each field that matters.
use Use when the user needs a {workload} for Kubernetes, wants a {pack} reviewed, or asks why a {workload} does not behave as expected.
use Use when converting a docker-compose service or a plain container into a Kubernetes {workload}.
step Ask for the image, ports, configuration and how many instances should run.
step Write the {workload} with labels, resource requests and limits, and probes.
step Add a security context: non-root user, read-only root filesystem where possible, dropped capabilities.
step Package it as {pack}, with {pack:v} for what differs per environment.
step Validate with a dry run against the cluster's API version and a schema linter.
note Memory limits below the app's real peak cause OOMKilled restarts that look like crashes.
vocab labels, selectors, annotations, resource requests, liveness probe, readiness probe, securityContext, kubeconform, kube-linter, dry run

# k8s-debug
slot symptom crashloop=CrashLoopBackOff{restart count, exit code, previous logs} | imagepull=ImagePullBackOff{registry credentials, image tag, pull secret} | oomkilled=OOMKilled pods{memory limit, heap size, container memory} | pending=pods stuck in Pending{insufficient resources, taints, node affinity, unbound PVC} | probes=failing readiness and liveness probes{probe timeout, startup probe, health endpoint} | dns=cluster DNS failures{CoreDNS, ndots, service discovery} | node-notready=nodes NotReady{kubelet, disk pressure, network plugin} | evicted=evicted pods{ephemeral storage, eviction thresholds, node pressure} | terminating=pods stuck Terminating{finalizers, grace period, volume detach} | certs=certificate errors{cert-manager, expired certificates, webhook TLS}
slot platform $k8s
name {platform}-{symptom}-debug
name debug-{symptom}-{platform}
name {platform}-troubleshoot-{symptom}
title Troubleshooting {symptom} on {platform}
title Debugging {symptom} ({platform})
desc Diagnoses {symptom} on {platform}: gathers events, logs and node conditions, finds the root cause and proposes the smallest safe fix.
desc Troubleshooting guide for {symptom} in {platform} clusters, from the first kubectl command to the fix and how to confirm it.
use Use when pods show {symptom}, when the user pastes kubectl output with {symptom:v}, or asks why a workload on {platform} will not start.
use Use when a deployment on {platform} is failing and the events mention {symptom:v}.
step Collect the state: §kubectl get§ and §kubectl describe§ for the affected pods, and recent events in the namespace.
step Read the events from the bottom up; the last warning usually names the cause of {symptom}.
step Check {symptom:v} and {symptom:v}, which cause most cases.
step On {platform}, also check {platform:v}.
step Apply the smallest fix, watch the pods recover, and note how to prevent a repeat.
note Deleting pods to make the error go away destroys the evidence: capture logs and events first.
vocab kubectl describe, events, exit code 137, container logs, node conditions, kubelet logs, namespace, restart policy

# k8s-ops
slot op upgrade=cluster version upgrade{version skew, deprecated APIs, drain, surge upgrades} | backup=backup and restore with Velero{Velero, volume snapshots, restore drills} | rbac=RBAC audit{roles, cluster roles, role bindings, service accounts} | rightsizing=resource rightsizing{requests, limits, VPA recommendations, bin packing} | autoscaling=cluster autoscaling{cluster autoscaler, Karpenter, scale-down delay} | node-rotation=node pool rotation{cordon, drain, PodDisruptionBudgets}
slot platform $k8s
name {platform}-{op}
name {op}-{platform}-cluster
title {op} for {platform}
desc Plans and runs a {op} on {platform} with a checklist, a rollback path and checks after each step.
desc Step-by-step {op} for {platform} clusters, including what to verify before, during and after.
use Use when the user needs to do a {op} on {platform} or asks about {op:v} and {op:v}.
use Use when planning maintenance on a {platform} cluster that involves {op:v}.
step Inventory the cluster: versions, node pools, workloads without PodDisruptionBudgets.
step Write the plan for the {op}, including the rollback for each step.
step Do a dry run in a non-production cluster when one exists.
step Execute during a change window, checking workloads after each step.
step Record the outcome and update the runbook.
vocab change window, maintenance, PodDisruptionBudget, drain, cordon, kubectl, version skew, control plane

# ci-pipeline
slot lang $lang
slot ci $ci
name {ci}-{lang}-pipeline
name {lang}-ci-{ci}
name {ci}-for-{lang}
title A {ci} pipeline for a {lang} project
title Continuous integration for {lang} on {ci}
desc Sets up a {ci} pipeline for a {lang} project: install, lint, test, build and publish artifacts, with caching that actually hits.
desc Writes {ci} configuration for {lang} repositories, covering test matrices, dependency caching and release jobs.
use Use when the user wants CI for a {lang} repo on {ci}, asks to add tests or linting to {ci}, or wants builds to run on every pull request.
use Use when migrating a {lang} build to {ci} or making an existing {ci} setup faster.
step Find how the project builds and tests locally ({lang:v}, {lang:v}); the pipeline should run the same commands.
step Write the {ci} config with separate jobs for lint, test and build.
step Cache dependencies keyed on the lockfile; verify the cache hits on a second run.
step Add a matrix only for versions the project supports.
step Publish artifacts or images from the main branch or tags only.
note Secrets must not be exposed to builds from forks.
vocab workflow, job, step, cache key, lockfile, matrix, artifacts, branch protection, status checks, build badge
code yaml
	name: ci
	on: [push, pull_request]
	jobs:
	  test:
	    runs-on: ubuntu-latest
	    steps:
	      - uses: actions/checkout@v4
	      - run: make lint test
end

# ci-fix
slot ci $ci
slot problem flaky=flaky tests{retries, test isolation, timing assumptions, quarantine} | slow=slow builds{cache misses, parallelism, build time, test sharding} | secrets=missing or broken secrets{secret scopes, environment protection, masked variables} | runners=runner and agent failures{self-hosted runners, disk space, runner labels, timeouts}
name {ci}-{problem}
name fix-{problem}-{ci}
title Fixing {problem} in {ci}
desc Investigates {problem} in {ci} and fixes the cause, not the symptom, using job logs, timings and history.
desc Diagnoses and repairs {problem} on {ci}, with measurements before and after.
use Use when {ci} runs are red for no clear reason, when the user complains about {problem}, or mentions {problem:v}.
use Use when builds on {ci} are unreliable or too slow and someone wants them fixed.
step Gather the last twenty runs and mark which failed, where and how long each step took.
step Reproduce locally or in a debug job when possible.
step Fix the cause of {problem}: {problem:v} or {problem:v}.
step Compare timings and failure rates before and after, over several runs.
vocab build logs, job history, rerun, pipeline duration, failure rate, debug logging

# dockerfile
slot lang $lang
slot goal slim=a small multi-stage image{multi-stage build, distroless, image size, build cache} | hardening=a hardened image{non-root user, image scanning, pinned base images, minimal packages} | devcontainer=a dev container{devcontainer.json, VS Code, local tooling, volume mounts} | compose=a Docker Compose stack{docker-compose.yml, services, volumes, healthchecks}
name {lang}-dockerfile-{goal}
name docker-{goal}-{lang}
name {lang}-{goal}-container
title {goal} for {lang}
title Containerizing a {lang} app: {goal}
desc Writes a Dockerfile for a {lang} application aimed at {goal}, explaining each instruction and the trade-offs.
desc Containerizes {lang} services with Docker: {goal}, reproducible builds and fast rebuilds.
use Use when the user wants to dockerize a {lang} app, asks for {goal}, or wants an existing Dockerfile improved.
use Use when a {lang} image is too big, too slow to build, or flagged by a scanner.
step Find the build and run commands for the {lang} app.
step Order layers so dependency installation is cached separately from source code.
step Aim for {goal}: {goal:v} and {goal:v}.
step Build, run and measure the image size and start time.
step Document how to build and run it in the README.
vocab Dockerfile, base image, layers, build cache, .dockerignore, ENTRYPOINT, CMD, image tag, registry
code dockerfile
	FROM golang:1.22 AS build
	WORKDIR /src
	COPY go.mod go.sum ./
	RUN go mod download
	COPY . .
	RUN CGO_ENABLED=0 go build -o /out/app ./cmd/app
	FROM gcr.io/distroless/static
	COPY --from=build /out/app /app
	USER nonroot
	ENTRYPOINT ["/app"]
end

# postmortem
slot incident outage=full outage{downtime, status page, customer impact} | data-loss=data loss{backups, restore, affected records} | breach=security breach{unauthorized access, credentials, disclosure} | latency=latency regression{p99 latency, slow requests, saturation} | bad-deploy=failed deployment{rollback, bad release, feature flag} | vendor=third-party outage{vendor dependency, SLA, fallback}
slot audience engineering=the engineering team{timeline, contributing factors, action items} | executives=executives{business impact, cost, risk} | customers=customers{customer-facing summary, apology, remediation}
name {incident}-postmortem-{audience}
name postmortem-{incident}
name {incident}-incident-review
title Postmortem of a {incident} for {audience}
desc Writes a blameless postmortem of a {incident} for {audience}: timeline, impact, root cause, contributing factors and follow-up actions.
desc Turns incident notes, chat logs and alerts about a {incident} into a clear incident review written for {audience}.
use Use after an incident when someone needs a postmortem, incident report or RCA about a {incident}.
use Use when the user shares an incident channel export or timeline and asks for a write-up for {audience}.
step Build the timeline from alerts, chat and deploy logs, in UTC.
step State the impact in numbers: duration, users affected, {incident:v}.
step Explain the root cause and the contributing factors without blaming people.
step List what went well and what was lucky.
step Write action items, each with an owner and a due date.
step Adapt depth and tone for {audience}.
vocab root cause, contributing factors, timeline, detection, mitigation, action items, blameless, five whys, RCA, MTTR

# runbook
slot alert high-cpu=high CPU{CPU saturation, throttling, hot loops} | disk-full=disk full{disk usage, log rotation, volume expansion} | error-rate=error rate spike{5xx errors, error budget burn, recent deploys} | cert-expiry=certificate expiry{TLS certificates, renewal, cert-manager} | queue-backlog=queue backlog{consumer lag, dead letters, worker scaling} | replication-lag=replication lag{replicas, WAL, failover} | memory-leak=memory growth{heap, OOM, restarts} | latency=high latency{p99, slow endpoints, saturation}
slot mon prometheus=Prometheus{PromQL, Alertmanager, recording rules} | datadog=Datadog{monitors, dashboards, APM} | grafana=Grafana{Grafana alerting, Loki, dashboards} | cloudwatch=CloudWatch{CloudWatch alarms, metrics, Logs Insights} | pagerduty=PagerDuty{escalation policies, incidents, schedules}
name {alert}-runbook-{mon}
name {mon}-{alert}-runbook
name runbook-{alert}
title Runbook: {alert} alerts from {mon}
desc Writes on-call runbooks for {alert} alerts raised by {mon}: what the alert means, how to check impact, how to mitigate and when to escalate.
desc Creates and improves operational runbooks for {alert} in {mon}, with exact queries and commands for the person on call.
use Use when the user wants a runbook or playbook for an alert, is on call for {alert}, or asks what to do when {mon} pages about {alert:v}.
use Use when alerts about {alert} fire without instructions, or the existing runbook is out of date.
step Describe the alert: the {mon} rule, its threshold and why it matters.
step Give the first three checks with copy-pasteable queries.
step List mitigations from safest to riskiest.
step Say when and whom to escalate.
step Link dashboards and past incidents.
vocab on-call, escalation, mitigation, alert threshold, dashboard, severity, paging, playbook

# instrument
slot lang $lang
slot tool otel=OpenTelemetry{traces, spans, OTLP exporter, context propagation} | prometheus=Prometheus{counters, histograms, /metrics endpoint, labels} | datadog=Datadog{APM, dd-trace, custom metrics} | sentry=Sentry{error tracking, breadcrumbs, releases, source maps} | honeycomb=Honeycomb{events, high-cardinality fields, BubbleUp}
name {lang}-{tool}-instrumentation
name instrument-{lang}-{tool}
name {tool}-for-{lang}
title Instrumenting {lang} services with {tool}
desc Adds {tool} instrumentation to a {lang} service: metrics, traces or errors with useful names and labels, without hurting performance.
desc Instruments {lang} code with {tool} so that latency, errors and throughput can be seen per endpoint and per dependency.
use Use when the user wants observability for a {lang} app, asks to add {tool}, or cannot tell why a service is slow from its current telemetry.
use Use when setting up monitoring or tracing in {lang} with {tool:v}.
step Identify the service's entry points and slow dependencies.
step Install the {tool} SDK for {lang} and configure it from environment variables.
step Instrument requests, outbound calls and background jobs with {tool:v} and {tool:v}.
step Keep label cardinality bounded: no user IDs or raw URLs as labels.
step Check the data arrives and build one dashboard around it.
vocab telemetry, latency histogram, error rate, throughput, sampling, cardinality, semantic conventions

# log-search
slot platform elk=Elasticsearch and Kibana{KQL, index patterns, Discover} | splunk=Splunk{SPL, indexes, saved searches} | loki=Grafana Loki{LogQL, labels, log streams} | cloudwatch-logs=CloudWatch Logs{Logs Insights, log groups} | datadog-logs=Datadog Logs{facets, log patterns} | journald=journald{journalctl, systemd units, boot logs}
slot goal errors=an error spike{stack traces, error codes, first occurrence} | slow=slow requests{request duration, slow endpoints, percentiles} | security=suspicious activity{failed logins, unusual IPs, privilege changes} | journey=a single user's journey{request IDs, correlation IDs, session}
name {platform}-{goal}-search
name {platform}-log-query-{goal}
name find-{goal}-in-{platform}
title Finding {goal} in {platform}
desc Writes {platform} queries to find {goal} in application and system logs, and summarizes what they show.
desc Searches logs in {platform} for {goal}, narrowing by time, service and fields until the cause is clear.
use Use when the user needs to dig through logs for {goal}, asks for a {platform:v} query, or pastes log lines to explain.
use Use when investigating {goal} and the logs live in {platform}.
step Fix the time window and the services involved.
step Start broad, then filter by {goal:v} and {goal:v}.
step Group and count to find patterns rather than reading lines one by one.
step Save the final query and link it in the summary.
vocab log lines, fields, time range, filters, aggregation, saved query, structured logging

# deploy-app
slot app static=a static site{HTML, build output, cache headers} | nextjs=a Next.js app{server components, API routes, environment variables} | python-api=a Python API{FastAPI, gunicorn, uvicorn} | go-service=a Go service{single binary, health endpoint, graceful shutdown} | rails=a Rails app{Puma, asset precompile, database migrations} | django=a Django app{gunicorn, collectstatic, migrations} | node-api=a Node.js API{Express, PM2, environment variables} | container=a container image{Dockerfile, image registry, port}
slot platform vercel=Vercel{preview deployments, edge functions} | netlify=Netlify{deploy previews, redirects, build plugins} | heroku=Heroku{dynos, Procfile, add-ons} | fly=Fly.io{fly.toml, machines, regions} | ecs=AWS ECS{task definitions, Fargate, services} | cloud-run=Google Cloud Run{revisions, concurrency, min instances} | app-service=Azure App Service{deployment slots, app settings} | render=Render{web services, blueprints} | kubernetes=Kubernetes{manifests, rollout, ingress}
name deploy-{app}-{platform}
name {platform}-{app}-deploy
name {app}-on-{platform}
title Deploying {app} to {platform}
desc Deploys {app} to {platform}: build settings, environment variables, health checks, custom domains and rollbacks.
desc Gets {app} running on {platform} and sets up repeatable deployments from the main branch.
use Use when the user wants to ship, host or deploy {app} on {platform}, or a deployment there is failing.
use Use when moving {app} to {platform} from another host.
step Confirm how the app builds and which port and environment variables it needs.
step Configure {platform}: {platform:v} and {platform:v}.
step Set secrets through the platform, not in the repository.
step Deploy, check the health endpoint and logs, and attach the domain.
step Write down how to roll back.
vocab build command, start command, environment variables, custom domain, HTTPS, rollback, zero-downtime deploy

# dns-certs
slot provider cloudflare=Cloudflare{proxied records, page rules, API tokens} | route53=Route 53{hosted zones, alias records, health checks} | cloud-dns=Google Cloud DNS{managed zones, record sets} | azure-dns=Azure DNS{DNS zones, record sets, alias records}
slot task tls=TLS certificates with Let's Encrypt{ACME, certbot, DNS-01 challenge, renewal} | migration=moving DNS between providers{TTL, zone export, nameservers, cutover} | email=email authentication records{SPF, DKIM, DMARC, MX records} | cdn=CDN and caching{cache rules, origin, purge}
name {provider}-{task}
name {task}-{provider}-dns
title {task} on {provider}
desc Manages {task} on {provider}, with the exact records to create, the order of changes and how to check propagation.
desc Sets up and troubleshoots {task} for domains hosted on {provider}.
use Use when the user mentions {task:v}, {task:v} or domains on {provider}, or a site or mailbox breaks after a DNS change.
use Use when configuring {task} for a domain in {provider}.
step List the current records and export the zone as a backup.
step Lower TTLs ahead of any cutover.
step Make the changes for {task} in order, one record at a time.
step Verify with dig from several resolvers and check expiry or policy reports.
vocab DNS records, TTL, propagation, dig, nameservers, zone file, apex domain, CNAME, TXT record

# secrets
slot vault hashicorp-vault=HashiCorp Vault{KV engine, dynamic secrets, policies, leases} | aws-secrets-manager=AWS Secrets Manager{rotation Lambda, resource policies} | gcp-secret-manager=Google Secret Manager{secret versions, IAM bindings} | azure-key-vault=Azure Key Vault{access policies, managed identities} | 1password=1Password{vaults, service accounts, op CLI} | doppler=Doppler{configs, environments, CLI injection} | sops=SOPS{age keys, KMS, encrypted YAML}
slot task rotation=secret rotation{rotation schedule, dual credentials, zero downtime} | migration=moving secrets out of code and env files{.env files, hardcoded keys, secret inventory} | leak=responding to a leaked secret{revocation, git history, audit logs}
name {vault}-{task}
name {task}-with-{vault}
title {task} with {vault}
desc Handles {task} using {vault}: inventory, safe rollout and verification that nothing still uses the old values.
desc Guides {task} for applications that read credentials from {vault}.
use Use when the user needs {task}, mentions API keys, passwords or tokens in {vault}, or found credentials in a repository.
use Use when setting up {vault} for {task:v} or {task:v}.
step Inventory the secrets involved and who or what reads each one.
step Plan the change so old and new values overlap until every consumer has switched.
step Do the {task} with {vault:v}.
step Verify with logs that the old value is no longer used, then revoke it.
vocab API keys, credentials, tokens, access policies, audit log, revocation, least privilege

# cloud-cost
slot cloud $cloud
slot area rightsizing=compute rightsizing{instance sizes, CPU utilization, overprovisioning} | storage=storage lifecycle{lifecycle policies, cold storage tiers, snapshots} | egress=data transfer and egress{NAT gateway charges, cross-region traffic, CDN} | commitments=reserved capacity and savings plans{commitments, coverage, utilization} | idle=idle and orphaned resources{unattached volumes, idle load balancers, old snapshots} | k8s=Kubernetes spend{requests vs usage, node utilization, cost allocation}
name {cloud}-cost-{area}
name {cloud}-{area}-savings
name reduce-{cloud}-bill-{area}
title Cutting {cloud} costs: {area}
desc Finds savings in {cloud} bills through {area}, with estimated monthly savings and the risk of each change.
desc Analyzes {cloud} cost and usage data for {area} and proposes changes ranked by savings and effort.
use Use when the user says the {cloud} bill is too high, asks for FinOps help, or wants to review {area:v}.
use Use when preparing a cloud cost review for {cloud} focused on {area}.
step Export cost and usage data for the last three months, grouped by service and tag.
step Find the biggest line items related to {area}.
step For each candidate, estimate savings and risk.
step Propose changes in order of savings per effort, with owners.
vocab cost explorer, billing export, tags, FinOps, monthly spend, unit cost, budget alerts

# linux-admin
slot distro ubuntu=Ubuntu{apt, netplan, unattended-upgrades} | debian=Debian{apt, systemd, backports} | rhel=Red Hat Enterprise Linux{dnf, SELinux, firewalld} | alpine=Alpine Linux{apk, musl, OpenRC} | amazon-linux=Amazon Linux{dnf, EC2, SSM agent}
slot task users=user and group management{sudoers, SSH keys, groups} | systemd=systemd services{unit files, journalctl, restart policies} | firewall=firewall rules{iptables, nftables, ufw, open ports} | disks=disks and LVM{partitions, filesystems, LVM, mount points} | patching=patching and upgrades{security updates, reboots, kernel updates} | ssh=SSH hardening{sshd_config, key-only login, fail2ban} | cron=scheduled jobs{crontab, systemd timers, job logs}
name {distro}-{task}
name {task}-on-{distro}
title {task} on {distro}
desc Administers {distro} servers: {task}, with commands that are safe to run on production hosts and notes on how to undo them.
desc Helps with {task} on {distro} machines, from a single VM to a fleet.
use Use when the user needs to configure {task} on {distro}, mentions {task:v}, or pastes an error from a {distro} server.
use Use for Linux server administration on {distro} involving {task:v}.
step Check the distro version and what is already configured.
step Back up the configuration files you will touch.
step Make the change for {task} with {distro:v} and {task:v}.
step Verify, and make sure the change survives a reboot.
vocab shell, root, sudo, configuration files, systemctl, package manager, kernel, logs

# proxy-config
slot server nginx=nginx{server blocks, location blocks, upstreams, nginx -t} | apache=Apache httpd{virtual hosts, .htaccess, mod_rewrite} | caddy=Caddy{Caddyfile, automatic HTTPS} | haproxy=HAProxy{frontends, backends, ACLs} | traefik=Traefik{routers, middlewares, providers} | envoy=Envoy{listeners, clusters, filters}
slot task reverse-proxy=reverse proxy setup{upstream servers, headers, websockets} | rate-limit=rate limiting{request limits, burst, 429 responses} | tls=TLS termination{certificates, HSTS, cipher suites} | caching=response caching{cache keys, cache headers, invalidation} | redirects=redirects and rewrites{301 redirects, URL rewrites, trailing slashes}
name {server}-{task}
name {server}-config-{task}
title {server}: {task}
desc Writes and debugs {server} configuration for {task}, tested before reload.
desc Configures {task} in {server} and explains the directives involved.
use Use when the user asks for a {server} config, mentions {task:v}, or a site behind {server} returns the wrong thing.
use Use when setting up {task} with {server}.
step Read the current configuration and find where requests are matched.
step Write the smallest change for {task} with {server:v}.
step Validate the syntax and reload without dropping connections.
step Test with curl, including headers and edge cases.
vocab configuration file, directives, reload, curl, headers, upstream, virtual host
`
