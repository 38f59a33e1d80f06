package skillgen

var codeText = `
$githost github=GitHub{pull requests, Actions, CODEOWNERS} | gitlab=GitLab{merge requests, pipelines} | bitbucket=Bitbucket{pull requests, Pipelines} | azure-devops=Azure DevOps{Repos, pull requests, policies}
$eco npm=npm{package.json, package-lock.json, node_modules} | pip=pip and PyPI{requirements.txt, pyproject.toml, wheels} | go=Go modules{go.mod, go.sum} | maven=Maven and Gradle{pom.xml, build.gradle} | cargo=Cargo{Cargo.toml, Cargo.lock, crates} | bundler=Bundler{Gemfile, Gemfile.lock} | composer=Composer{composer.json, composer.lock} | nuget=NuGet{csproj, packages}

=software
gloss function, module, package, class, interface, dependency, library, framework, repository, branch, commit, pull request, code review, test, unit test, integration test, build, compiler, linter, formatter, type system, error handling, logging, configuration, performance, memory, concurrency, API, refactoring, technical debt, documentation, release, version, semver, CI, debugging, stack trace, profiler
code bash
	git switch -c fix/short-description
	make test
	git add -p
	git commit
	git push -u origin HEAD
end

# lang-review
slot lang $lang
slot focus security=security{injection, authentication, secrets, input validation} | performance=performance{allocations, N+1 queries, hot paths} | readability=readability and style{naming, function size, idioms} | concurrency=concurrency{races, locks, async} | tests=test coverage{missing tests, edge cases, assertions}
name {lang}-{focus}-review
name review-{lang}-{focus}
name {lang}-code-review-{focus}
title {lang} code review: {focus}
desc Reviews {lang} code with a focus on {focus}, pointing to exact lines and suggesting idiomatic fixes.
desc Checks {lang} changes for {focus} problems before they are merged.
use Use when the user asks to review {lang} code or a diff for {focus:v} or {focus:v}.
use Use when auditing a {lang} module or pull request with {focus} in mind.
step Read the change and its intent.
step Look for {focus:v}, {focus:v} and {focus:v} issues specific to {lang}.
step Check that {lang:v} and {lang:v} are used idiomatically.
step Write comments with severity and a suggested change.
vocab diff, comments, severity, suggestions, idioms, best practices

# testing
slot fw jest=Jest{mocks, snapshots, describe blocks} | vitest=Vitest{vi.mock, in-source tests} | pytest=pytest{fixtures, parametrize, conftest.py} | gotest=Go testing{table-driven tests, t.Run, testdata} | junit=JUnit{assertions, parameterized tests, Mockito} | rspec=RSpec{let, contexts, factories} | playwright=Playwright{locators, fixtures, traces} | cypress=Cypress{commands, intercepts} | xunit=xUnit{facts, theories, fixtures}
slot task write=writing tests{coverage, edge cases, assertions} | flaky=fixing flaky tests{timing, shared state, retries} | coverage=raising coverage{coverage report, untested branches} | migrate=migrating test frameworks{codemods, compatibility}
name {fw}-{task}
name {fw}-tests-{task}
name {task}-{fw}
title {fw}: {task}
desc Helps with {task} using {fw}: tests that fail for the right reasons and run fast.
desc Test engineering with {fw}, focused on {task}.
use Use when the user works with {fw:v} or {fw:v}, or asks for help with {task:v}.
use Use for automated testing work on {task} with {fw}.
step Read the code under test and the existing tests.
step Do {task} with {fw:v}.
step Run the suite several times to check stability.
step Report what is covered now and what is not.
vocab test suite, test cases, assertions, fixtures, mocks, test runner

# refactor
slot lang $lang
slot task extract=breaking up large functions{extract function, modules, cohesion} | dead-code=removing dead code{unused functions, feature flags} | async=migrating to async{async/await, callbacks, promises} | types=adding type annotations{static types, type checker} | upgrade=upgrading the framework version{deprecations, breaking changes} | rename=renaming a public API{deprecation path, aliases}
name {lang}-refactor-{task}
name refactor-{lang}-{task}
title Refactoring {lang}: {task}
desc Refactors {lang} code for {task} in small, behaviour-preserving steps, each verified by tests.
desc Plans and performs {task} in {lang} codebases.
use Use when the user wants to clean up {lang} code, mentions technical debt, or asks about {task:v}.
use Use for {lang} refactoring involving {task:v}.
step Make sure tests cover the behaviour to keep.
step Plan {task} as a series of small commits.
step Apply each step and run tests.
step Summarize what changed and what remains.
vocab refactoring, technical debt, behaviour-preserving, tests, small commits

# debugging
slot lang $lang
slot problem memory-leak=memory leaks{heap profiles, retained objects} | race=race conditions and deadlocks{race detector, locks, goroutines, threads} | profiling=slow code{CPU profile, flame graphs, hot paths} | crash=crashes and stack traces{stack trace, core dump, panics, exceptions} | encoding=text encoding bugs{UTF-8, mojibake, byte order mark} | timezones=time zone bugs{UTC, daylight saving, timestamps}
name {lang}-{problem}
name debug-{lang}-{problem}
title Debugging {problem} in {lang}
desc Finds the cause of {problem} in {lang} programs with the right tools, and fixes it with a test that reproduces it.
desc Systematic debugging of {problem} in {lang}.
use Use when a {lang} program shows {problem:v} or {problem:v}, or the user pastes an error from {lang}.
use Use for troubleshooting {problem} in {lang} code.
step Reproduce the problem reliably.
step Collect evidence with {problem:v}.
step Form a hypothesis and test it.
step Fix, add a regression test, and confirm.
vocab bug, reproduction, root cause, regression test, debugger, logs

# git-workflow
slot task conflicts=merge conflicts{conflict markers, ours and theirs, rerere} | rebase=interactive rebase{squash, fixup, reorder commits} | bisect=finding regressions with git bisect{good and bad commits, bisect run} | history-cleanup=removing secrets from history{filter-repo, force push, rotation} | sparse=large monorepos{sparse checkout, partial clone} | submodules=submodules{submodule update, pinned commits} | branching=branching strategy{trunk-based development, release branches, GitFlow} | tags=release tags{annotated tags, version numbers}
slot host $githost
name git-{task}-{host}
name {host}-{task}
title Git: {task} ({host})
desc Walks through {task} in Git for repositories hosted on {host}, safely and with a way to undo.
desc Git helper for {task}, with commands explained.
use Use when the user is stuck with {task:v} or {task:v}, or asks how to do {task} on {host}.
use Use for version control tasks involving {task}.
step Check the repository state with git status and git log.
step Make a backup branch.
step Do {task} with {task:v}.
step Verify the result and push, coordinating with others if history changed.
vocab git, commits, branches, remote, history, reflog

# pr-workflow
slot task description=pull request descriptions{summary, testing notes, screenshots} | template=pull request templates{checklists, sections} | split=splitting large pull requests{stacked changes, reviewable chunks} | codeowners=code owners and review rules{CODEOWNERS, required reviewers} | stacked=stacked pull requests{dependent branches, rebasing stacks}
slot host $githost
name {host}-pr-{task}
name pr-{task}-{host}
title Pull requests on {host}: {task}
desc Helps with {task} on {host} so changes are easy to review and merge.
desc Improves the pull request workflow on {host}: {task}.
use Use when the user asks about {task:v} or {task:v} for pull requests or merge requests on {host}.
use Use for code collaboration workflow on {host}.
step Look at the team's current pull request conventions.
step Apply {task} with {task:v}.
step Check it in the {host} interface.
step Document the convention for the team.
vocab pull requests, merge requests, reviewers, branches, merging, collaboration

# api-design
slot style rest=REST APIs{resources, HTTP methods, status codes} | graphql=GraphQL APIs{schema, resolvers, N+1} | grpc=gRPC APIs{protobuf, streaming, deadlines} | websocket=WebSocket APIs{messages, reconnection} | webhooks=webhooks{signatures, retries, event types}
slot task design=endpoint and schema design{naming, resources, types} | versioning=versioning{backward compatibility, deprecation} | pagination=pagination{cursors, page size} | errors=error formats{error codes, problem details} | rate-limits=rate limiting{quotas, 429, retry-after} | auth=authentication{API keys, OAuth scopes, tokens}
name {style}-{task}
name {style}-api-{task}
title {style}: {task}
desc Designs {task} for {style} that are consistent, predictable and easy for clients to use.
desc API design guidance for {style}, focused on {task}.
use Use when designing or reviewing {style}, or the user asks about {task:v} or {task:v}.
use Use for API design decisions on {task}.
step Gather client use cases.
step Propose {task} with {task:v}.
step Write examples of requests and responses.
step Check consistency with existing APIs.
vocab API design, clients, contracts, backward compatibility, conventions

# frontend
slot fw react=React{hooks, components, JSX} | vue=Vue{composition API, single-file components} | svelte=Svelte{stores, runes} | angular=Angular{components, services, RxJS} | solid=SolidJS{signals} | nextjs=Next.js{app router, server components} | nuxt=Nuxt{pages, composables} | astro=Astro{islands, content collections}
slot task state=state management{global state, stores, context} | forms=forms and validation{validation, error messages, controlled inputs} | routing=routing{routes, nested layouts, navigation} | ssr=server rendering and hydration{hydration errors, SSR, streaming} | perf=performance and bundle size{code splitting, lazy loading, bundle analyzer} | components=component libraries{shared components, theming}
name {fw}-{task}
name {fw}-frontend-{task}
title {fw}: {task}
desc Implements {task} in {fw} apps the idiomatic way, with accessible markup and tests.
desc Frontend helper for {fw}: {task}.
use Use when the user builds a web app with {fw} and asks about {task:v} or {task:v}.
use Use for frontend development on {task} in {fw}.
step Read how the {fw} app is structured today.
step Implement {task} with {fw:v}.
step Test in the browser and with unit tests.
step Check accessibility and performance.
vocab frontend, web app, components, browser, UI, JavaScript

# css
slot tool tailwind=Tailwind CSS{utility classes, config} | css-modules=CSS modules{scoped classes} | styled-components=styled-components{CSS-in-JS, themes} | sass=Sass{mixins, partials} | vanilla=plain CSS{custom properties, cascade layers}
slot task responsive=responsive layouts{media queries, container queries, grid} | dark-mode=dark mode{prefers-color-scheme, theme toggle} | animation=animations{transitions, keyframes, reduced motion} | print=print styles{@media print, page breaks}
name {tool}-{task}
name {task}-{tool}
title {task} with {tool}
desc Builds {task} with {tool}, working across browsers and respecting user preferences.
desc Styling helper: {task} in {tool}.
use Use when the user styles a site with {tool} and needs {task:v} or {task:v}.
use Use for CSS work on {task}.
step Check the existing styles and breakpoints.
step Implement {task} with {tool:v}.
step Test in several browsers and sizes.
step Remove unused styles.
vocab CSS, styles, layout, browsers, design

# backend
slot fw django=Django{models, views, ORM} | fastapi=FastAPI{Pydantic, dependencies, async} | flask=Flask{blueprints, extensions} | express=Express{middleware, routers} | nestjs=NestJS{modules, providers, decorators} | spring=Spring Boot{beans, controllers, JPA} | rails=Ruby on Rails{ActiveRecord, controllers} | laravel=Laravel{Eloquent, artisan} | aspnet=ASP.NET Core{controllers, minimal APIs, EF Core} | gin=Gin{handlers, middleware} | phoenix=Phoenix{contexts, LiveView}
slot task crud=CRUD endpoints{models, validation, routes} | jobs=background jobs{queues, workers, retries} | caching=caching{cache invalidation, Redis} | uploads=file uploads{multipart, storage, size limits} | websockets=real-time features{websockets, channels} | auth=login and sessions{sessions, password hashing, middleware}
name {fw}-{task}
name {fw}-backend-{task}
title {fw}: {task}
desc Builds {task} in {fw} following the framework's conventions, with tests and error handling.
desc Backend development helper for {fw}: {task}.
use Use when the user builds a backend with {fw} and needs {task:v} or {task:v}.
use Use for server-side development of {task} in {fw}.
step Read the project structure and conventions.
step Implement {task} with {fw:v}.
step Write tests for success and failure cases.
step Document configuration and limits.
vocab backend, server, endpoints, database, requests, responses

# cli-tool
slot stack click=Python Click or Typer{commands, options} | cobra=Go Cobra{commands, flags} | clap=Rust clap{derive, subcommands} | commander=Node Commander{options, subcommands} | bash=Bash{getopts, scripts}
slot task scaffold=scaffolding a CLI{commands, help text} | completion=shell completion{bash, zsh, fish} | packaging=packaging and releases{Homebrew, binaries, installers} | config=configuration files{config file, environment variables, precedence}
name {stack}-cli-{task}
name {task}-{stack}
title Command-line tools with {stack}: {task}
desc Builds command-line tools with {stack}: {task}, with helpful errors and --help output.
desc CLI development helper for {stack}, focused on {task}.
use Use when the user writes a command-line tool in {stack} and needs {task:v} or {task:v}.
use Use for CLI design and packaging with {stack}.
step Design commands and flags from user tasks.
step Implement {task} with {stack:v}.
step Test on macOS, Linux and Windows where relevant.
step Document usage with examples.
vocab command line, terminal, flags, arguments, exit codes, help text

# deps-upgrade
slot eco $eco
slot task major=major version upgrades{breaking changes, changelogs} | lockfile=lockfile conflicts{lockfile, merge conflicts, resolution} | security=security patches{advisories, CVEs, patch versions} | unused=removing unused dependencies{dead dependencies, bundle size}
name {eco}-{task}
name {eco}-deps-{task}
title {eco} dependencies: {task}
desc Handles {task} for {eco} projects safely: read changelogs, update in small steps, run tests after each.
desc Dependency maintenance for {eco}: {task}.
use Use when the user needs to update {eco} packages, mentions {eco:v} or {task:v}.
use Use for dependency management work in {eco}.
step List current dependencies and versions.
step Plan {task} with {task:v}.
step Update, run tests, and read the changelogs of what changed.
step Commit in small, reviewable steps.
vocab dependencies, versions, changelog, lockfile, package manager, updates

# publish-package
slot registry npm=npm{package.json, npm publish, scopes} | pypi=PyPI{twine, wheels, trusted publishing} | crates=crates.io{cargo publish} | maven-central=Maven Central{Sonatype, signing} | rubygems=RubyGems{gemspec, gem push} | nuget=NuGet{nupkg, API keys} | docker-hub=Docker Hub{image tags, multi-arch} | homebrew=Homebrew{formula, tap}
slot task first=publishing a first release{metadata, README, version} | automate=automating releases{CI release jobs, tags} | sign=signing and provenance{signatures, SBOM, provenance}
name {registry}-{task}
name publish-{registry}-{task}
title Publishing to {registry}: {task}
desc Publishes packages to {registry}: {task}, with correct metadata and a repeatable process.
desc Release engineering for {registry}, covering {task}.
use Use when the user wants to publish or release a package on {registry}, or asks about {task:v}.
use Use for packaging and distribution via {registry}.
step Check metadata: name, version, license, README.
step Do {task} with {registry:v}.
step Test install from the registry in a clean environment.
step Document the release process.
vocab package, release, version, registry, publish, distribution

# scripting
slot task regex=regular expressions{patterns, capture groups, lookahead} | bash=shell scripts{pipes, exit codes, quoting} | awk-sed=text processing with awk and sed{fields, substitutions} | powershell=PowerShell scripts{cmdlets, objects, pipeline} | makefile=Makefiles{targets, phony, variables} | cron=cron expressions{schedules, time zones} | jq=jq filters{JSON, selectors}
slot os linux=Linux{GNU tools} | macos=macOS{BSD tools, zsh} | windows=Windows{PowerShell, cmd}
name {task}-{os}
name {os}-{task}
title {task} on {os}
desc Writes and explains {task} that work on {os}, with test inputs and the edge cases covered.
desc Scripting helper for {task} on {os}.
use Use when the user needs {task:v} or {task:v}, or a one-liner on {os}.
use Use for automation scripts on {os}.
step Ask for sample input and expected output.
step Write {task} with {task:v}.
step Test on the samples and edge cases.
step Explain each part briefly.
vocab scripts, automation, one-liners, text, terminal

# web-perf
slot task vitals=Core Web Vitals{LCP, INP, CLS} | images=image loading{lazy loading, responsive images, srcset} | caching=caching and CDN headers{Cache-Control, ETags, CDN} | bundles=JavaScript bundle size{code splitting, tree shaking} | lighthouse=Lighthouse audits{scores, opportunities}
slot stack wordpress=WordPress{plugins, themes} | shopify=Shopify{Liquid, apps} | nextjs=Next.js{Image component, ISR} | spa=a React single-page app{client rendering} | static=a static site{HTML, assets}
name {stack}-{task}
name {task}-{stack}-performance
title Web performance for {stack}: {task}
desc Makes {stack} sites faster through {task}, with measurements before and after.
desc Improves page speed on {stack} by working on {task}.
use Use when a {stack} site is slow, or the user asks about {task:v} or {task:v}.
use Use for web performance optimization on {stack}.
step Measure with lab and field data.
step Find the biggest opportunity in {task}.
step Apply fixes for {stack}.
step Measure again and report.
vocab page speed, performance, load time, PageSpeed Insights, metrics

=security
gloss vulnerability, CVE, exploit, attack surface, threat, risk, severity, CVSS, patch, mitigation, authentication, authorization, encryption, secrets, least privilege, audit log, incident response, detection, SIEM, firewall, penetration test, scanner, false positive, remediation, security review, compliance, zero trust, hardening

# dependency-audit
slot eco $eco
slot tool snyk=Snyk{snyk test, fix PRs} | dependabot=Dependabot{alerts, security updates} | osv=OSV-Scanner{OSV database} | renovate=Renovate{update PRs, grouping}
name {eco}-vuln-audit-{tool}
name {tool}-{eco}-audit
title Auditing {eco} dependencies with {tool}
desc Finds vulnerable {eco} dependencies with {tool}, triages which findings are reachable, and plans upgrades.
desc Dependency vulnerability management for {eco} projects using {tool}.
use Use when the user asks whether their {eco} dependencies have known vulnerabilities or CVEs, or mentions {tool:v}.
use Use for software composition analysis on {eco}.
step Run {tool} on the project.
step Triage: reachable, exploitable, fix available.
step Upgrade or patch, starting with critical reachable issues.
step Document accepted risks.
vocab software composition analysis, SCA, CVEs, advisories, vulnerable packages, upgrades

# container-scan
slot registry dockerhub=Docker Hub{repositories, tags} | ecr=Amazon ECR{scan on push} | artifact-registry=Google Artifact Registry{vulnerability scanning} | acr=Azure Container Registry{Defender} | harbor=Harbor{projects, Trivy integration}
slot tool trivy=Trivy{image scan, misconfiguration} | grype=Grype{SBOM, matches} | docker-scout=Docker Scout{CVEs, base image recommendations}
name {tool}-{registry}-scan
name scan-{registry}-images-{tool}
title Scanning images in {registry} with {tool}
desc Scans container images in {registry} with {tool}, prioritizes fixable findings, and gates deployments on severity.
desc Container image vulnerability scanning for {registry} using {tool}.
use Use when the user wants to scan Docker images, asks about image CVEs in {registry}, or mentions {tool}.
use Use for container security in {registry}.
step Scan the image with {tool}.
step Separate base image findings from application findings.
step Rebuild on a patched base image where possible.
step Add the scan to CI with a severity threshold.
vocab container images, Docker, base images, CVEs, SBOM, scanning

# sast
slot lang $lang
slot tool semgrep=Semgrep{rules, autofix} | codeql=CodeQL{queries, code scanning} | sonarqube=SonarQube{quality gates, hotspots}
name {tool}-{lang}
name {lang}-sast-{tool}
title Static analysis of {lang} with {tool}
desc Sets up {tool} static analysis for {lang} code, tunes out noise, and triages real findings.
desc Static application security testing (SAST) for {lang} with {tool}.
use Use when the user wants to scan {lang} source code for security bugs, or asks about {tool}.
use Use for code scanning of {lang} projects.
step Run {tool} with the default {lang} rules.
step Triage findings; suppress false positives with a reason.
step Fix true positives and add tests.
step Run it on every pull request.
vocab static analysis, SAST, code scanning, rules, findings, false positives

# threat-model
slot system webapp=a web application{sessions, user input} | mobile=a mobile app{device storage, APIs} | api=a public API{tokens, rate limits} | ml=an ML pipeline{training data, model artifacts} | iot=an IoT device{firmware, pairing} | payments=a payment flow{card data, fraud} | extension=a browser extension{permissions, content scripts} | llm-agent=an LLM agent{prompt injection, tool use}
slot method stride=STRIDE{spoofing, tampering, repudiation} | pasta=PASTA{attack simulation, business impact} | attack-trees=attack trees{goals, attack paths} | linddun=LINDDUN{privacy threats, linkability}
name threat-model-{system}-{method}
name {system}-{method}-threat-model
title Threat modelling {system} with {method}
desc Threat models {system} with {method}: data flows, trust boundaries, threats and mitigations ranked by risk.
desc Runs a {method} threat modelling session for {system}.
use Use when the user designs {system} and asks what could go wrong, wants a security design review, or mentions {method}.
use Use for threat modelling {system:v}.
step Draw the data flow and trust boundaries.
step Enumerate threats with {method:v}.
step Rate each threat and propose mitigations.
step Record decisions and owners.
vocab threat modeling, data flow diagram, trust boundaries, threats, mitigations, security design review

# pentest
slot target webapp=web applications{OWASP Top 10, Burp Suite} | api=APIs{BOLA, authorization, fuzzing} | ad=Active Directory{Kerberos, BloodHound} | wifi=wireless networks{WPA, rogue access points} | cloud=cloud accounts{IAM misconfigurations, metadata service} | mobile=mobile apps{MobSF, Frida}
slot phase recon=reconnaissance and scoping{scope, rules of engagement} | report=report writing{findings, severity, reproduction steps} | retest=retesting fixes{verification, regression}
name {target}-pentest-{phase}
name pentest-{phase}-{target}
title Authorized penetration testing of {target}: {phase}
desc Supports authorized penetration tests of {target} during {phase}, within an agreed scope and rules of engagement.
desc Helps security testers with {phase} for {target} engagements.
use Use when the user runs an authorized security assessment of {target} and needs help with {phase:v}.
use Use for pentest {phase} on {target}.
step Confirm written authorization and scope.
step Do {phase} with {target:v}.
step Record evidence carefully.
step Communicate critical findings immediately.
vocab penetration testing, ethical hacking, scope, findings, evidence, authorization

# sec-incident
slot incident phishing=phishing{reported emails, credential harvesting} | ransomware=ransomware{encryption, backups, isolation} | leaked-credentials=leaked credentials{exposed keys, rotation} | account-takeover=account takeover{session hijacking, MFA} | malware=malware on a laptop{EDR, isolation, reimaging} | ddos=DDoS attacks{traffic spikes, mitigation} | exfiltration=data exfiltration{unusual downloads, DLP}
slot phase triage=triage{severity, scope} | containment=containment{isolation, blocking} | forensics=forensic timeline{artifacts, logs, timeline} | notification=notification{regulators, customers, legal}
name {incident}-{phase}
name {incident}-incident-{phase}
title {incident} response: {phase}
desc Guides the {phase} phase of responding to {incident}, with checklists and what to preserve for later.
desc Security incident response for {incident}: {phase}.
use Use when the user is dealing with {incident:v} or {incident:v} and needs {phase}.
use Use during a security incident involving {incident}.
step Establish who leads and how to communicate.
step Do {phase} with {phase:v}.
step Preserve evidence before changing systems.
step Record every action with a timestamp.
vocab incident response, containment, eradication, recovery, evidence, IR plan

# auth
slot protocol oauth=OAuth 2.0{authorization code, PKCE, scopes} | oidc=OpenID Connect{ID tokens, discovery, claims} | saml=SAML SSO{assertions, IdP, metadata} | jwt=JWTs{signing, expiry, claims} | passkeys=passkeys and WebAuthn{credentials, authenticators} | mfa=TOTP two-factor authentication{authenticator apps, recovery codes} | api-keys=API keys{hashing, rotation, scopes}
slot stack express=Node.js Express{middleware, Passport} | django=Django{auth backends, middleware} | spring=Spring Security{filters, configuration} | rails=Rails{Devise, OmniAuth} | go=Go{net/http, middleware} | nextjs=Next.js{Auth.js, middleware} | fastapi=FastAPI{dependencies, security utilities}
name {protocol}-{stack}
name {stack}-{protocol}-auth
title {protocol} in {stack}
desc Implements {protocol} in {stack} securely: correct flows, token handling and the common mistakes avoided.
desc Authentication and login with {protocol} for {stack} applications.
use Use when the user adds login, SSO or {protocol:v} to a {stack} app, or auth is failing.
use Use for authentication work with {protocol} in {stack}.
step Choose the flow for the client type.
step Implement with {stack:v}.
step Handle {protocol:v} and expiry correctly.
step Test failure paths: expired, revoked, tampered.
vocab authentication, login, SSO, tokens, sessions, identity provider

# detection-rules
slot siem splunk=Splunk{SPL, correlation searches} | sentinel=Microsoft Sentinel{KQL, analytics rules} | elastic=Elastic Security{EQL, detection rules} | chronicle=Google SecOps{YARA-L} | sumo=Sumo Logic{queries, monitors}
slot rule bruteforce=brute-force logins{failed logins, lockouts} | impossible-travel=impossible travel{geolocation, sign-ins} | privesc=privilege escalation{admin groups, role changes} | exfil=data exfiltration{large downloads, uploads} | powershell=suspicious PowerShell{encoded commands, script block logging}
name {siem}-{rule}-detection
name detect-{rule}-{siem}
title Detecting {rule} in {siem}
desc Writes {siem} detection rules for {rule}, tuned against real logs to keep false positives low.
desc Detection engineering in {siem}: {rule}.
use Use when the user builds SIEM detections for {rule:v} or {rule:v} in {siem}.
use Use for threat detection content in {siem}.
step Identify the log sources needed.
step Write the rule with {siem:v}.
step Test against historical data and tune thresholds.
step Document response steps for analysts.
vocab detection engineering, SIEM, alerts, SOC, log sources, MITRE ATT&CK

# cloud-security
slot cloud $cloud3
slot area iam=IAM least privilege{roles, unused permissions, access keys} | exposure=public exposure{public buckets, open ports} | encryption=encryption at rest{KMS keys, default encryption} | logging=audit logging{CloudTrail, audit logs, retention} | network=network segmentation{VPCs, firewall rules, private endpoints}
name {cloud}-{area}-review
name {cloud}-security-{area}
title {cloud} security: {area}
desc Reviews {cloud} accounts for {area} problems and proposes fixes in order of risk.
desc Cloud security posture review of {area} in {cloud}.
use Use when the user asks to secure a {cloud} account, mentions {area:v} or {area:v}, or got a CSPM finding.
use Use for cloud security work on {area} in {cloud}.
step Inventory accounts and resources in scope.
step Check {area:v} across them.
step Rank findings by exposure and sensitivity.
step Fix with infrastructure as code where possible.
vocab cloud security, CSPM, misconfiguration, findings, posture

=mobile
gloss app, device, iOS, Android, simulator, emulator, app store, release, build, signing, permissions, notifications, offline, sync, crash, performance, battery, screen, navigation, gestures, accessibility, analytics, beta testing, TestFlight, Play Console

# mobile-release
slot platform ios=iOS{Xcode, App Store Connect} | android=Android{Gradle, Play Console} | react-native=React Native{Metro, native modules} | flutter=Flutter{pubspec, platform channels} | kmp=Kotlin Multiplatform{shared code, expect/actual} | maui=.NET MAUI{handlers, platforms}
slot task store-submission=app store submission{review guidelines, screenshots, metadata} | signing=code signing{certificates, provisioning profiles, keystores} | push=push notifications{APNs, FCM, tokens} | iap=in-app purchases{subscriptions, receipts, StoreKit, Play Billing} | deep-links=deep links{universal links, app links} | crashes=crash reporting{Crashlytics, symbolication} | offline=offline sync{local database, conflict resolution} | fastlane=automated releases{fastlane, CI, versioning}
name {platform}-{task}
name {platform}-app-{task}
title {platform}: {task}
desc Handles {task} for {platform} apps, step by step, including the console settings that are easy to miss.
desc Mobile development helper for {platform}: {task}.
use Use when the user builds a {platform} app and needs {task:v} or {task:v}.
use Use for mobile app work on {task} with {platform}.
step Check the project setup and versions.
step Configure {task} with {task:v}.
step Test on real devices.
step Document the setup for the team.
vocab mobile app, devices, build, release, store

# mobile-ui
slot ui swiftui=SwiftUI{views, modifiers, state} | compose=Jetpack Compose{composables, state hoisting} | flutter=Flutter{widgets, layouts} | react-native=React Native{components, StyleSheet}
slot screen login=login screens{forms, validation, biometrics} | onboarding=onboarding flows{pages, skip, permissions} | settings=settings screens{toggles, sections} | list-detail=list and detail screens{lists, navigation} | map=map views{markers, location} | camera=camera capture{permissions, preview} | chat=chat screens{messages, keyboard}
name {ui}-{screen}
name {screen}-{ui}
title {screen} in {ui}
desc Builds {screen} in {ui} with good state handling, accessibility and platform conventions.
desc Implements {screen} with {ui}.
use Use when the user builds {screen:v} or {screen:v} with {ui}.
use Use for mobile UI development in {ui}.
step Sketch the screen and its states.
step Build it with {ui:v}.
step Handle loading, errors and empty data.
step Test with large text and screen readers.
vocab mobile UI, screens, layout, state, navigation

# mobile-perf
slot platform ios=iOS{Instruments, Time Profiler} | android=Android{Android Studio profiler, Perfetto} | react-native=React Native{Hermes, Flipper} | flutter=Flutter{DevTools, frame rendering}
slot problem startup=slow startup{cold start, launch time} | battery=battery drain{background work, wake locks} | memory=memory leaks{retain cycles, leaks} | jank=janky scrolling{dropped frames, rendering} | size=app size{bundle size, assets, code shrinking}
name {platform}-{problem}
name {platform}-perf-{problem}
title {platform} performance: {problem}
desc Diagnoses and fixes {problem} in {platform} apps using profiling tools.
desc Mobile performance work on {problem} for {platform}.
use Use when a {platform} app suffers from {problem:v} or {problem:v}.
use Use for mobile performance optimization.
step Measure on a low-end device.
step Profile with {platform:v}.
step Fix the largest cause.
step Measure again and guard with a check in CI.
vocab performance, profiling, devices, metrics

=ml
gloss model, training, dataset, features, labels, validation set, test set, overfitting, hyperparameters, loss, accuracy, precision, recall, F1, GPU, inference, embeddings, tokenizer, fine-tuning, evaluation, baseline, experiment, checkpoint, batch size, learning rate, data leakage, drift
code python
	from sklearn.model_selection import train_test_split
	from sklearn.metrics import classification_report

	X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
	model.fit(X_train, y_train)
	print(classification_report(y_test, model.predict(X_test)))
end

# model-training
slot task image-class=image classification{augmentation, CNN, transfer learning} | detection=object detection{bounding boxes, mAP, anchors} | text-class=text classification{labels, tokenization} | ner=named entity recognition{entities, spans, BIO tags} | tabular=tabular regression and classification{features, target encoding} | recsys=recommendation models{implicit feedback, ranking} | speech=speech recognition{audio features, WER}
slot fw pytorch=PyTorch{DataLoader, nn.Module} | tensorflow=TensorFlow and Keras{tf.data, callbacks} | sklearn=scikit-learn{pipelines, cross-validation} | xgboost=XGBoost{boosting rounds, early stopping} | jax=JAX{jit, Flax} | transformers=Hugging Face Transformers{Trainer, pretrained models}
name {task}-{fw}
name {fw}-{task}
name train-{task}-{fw}
title Training {task} with {fw}
desc Trains {task} models with {fw}: data splits, a baseline, training loops and evaluation that can be trusted.
desc End-to-end {task} in {fw}, from data preparation to evaluation.
use Use when the user wants to train or improve a model for {task:v} or {task:v} with {fw}.
use Use for machine learning projects on {task}.
step Look at the data and define the metric.
step Build a simple baseline.
step Train with {fw:v} and track experiments.
step Evaluate on a held-out set and analyze errors.
vocab machine learning, training loop, evaluation, metrics, GPU, dataset

# llm-finetune
slot method lora=LoRA{adapters, rank, alpha} | qlora=QLoRA{4-bit quantization, adapters} | full=full fine-tuning{all weights, memory} | dpo=DPO{preference pairs, reference model} | sft=instruction tuning{chat templates, SFT}
slot model llama=Llama{Meta, chat template} | mistral=Mistral{sliding window} | gemma=Gemma{Google} | qwen=Qwen{Alibaba} | phi=Phi{small models}
name {model}-{method}
name finetune-{model}-{method}
title Fine-tuning {model} with {method}
desc Fine-tunes {model} models with {method}: data formatting, hyperparameters, memory budget and evaluation against the base model.
desc Guides {method} training of {model} on custom data.
use Use when the user wants to fine-tune an open LLM like {model}, or asks about {method:v} or {method:v}.
use Use for LLM fine-tuning with {method}.
step Check the data format and quality.
step Set up {method} with {method:v}.
step Train on a small subset to validate the setup.
step Evaluate against the base model on held-out prompts.
vocab LLM, fine-tuning, training data, GPU memory, evaluation, checkpoints

# rag
slot store pinecone=Pinecone{indexes, namespaces} | weaviate=Weaviate{classes, hybrid search} | qdrant=Qdrant{collections, payload filters} | pgvector=pgvector{PostgreSQL, HNSW indexes} | chroma=Chroma{collections, local} | milvus=Milvus{collections, partitions}
slot task chunking=chunking strategy{chunk size, overlap, document structure} | eval=retrieval evaluation{recall, relevance judgments} | hybrid=hybrid search{BM25, reranking, fusion} | ingestion=ingestion pipelines{embeddings, metadata, updates}
name {store}-{task}
name rag-{task}-{store}
title RAG with {store}: {task}
desc Builds retrieval-augmented generation on {store}, focused on {task}, measured with real questions.
desc Improves RAG systems backed by {store} through {task}.
use Use when the user builds a RAG or semantic search app on {store}, or asks about {task:v} or {task:v}.
use Use for vector database and retrieval work on {store}.
step Collect representative questions and documents.
step Work on {task} with {task:v}.
step Configure {store:v}.
step Evaluate answers and retrieval, then iterate.
vocab retrieval, embeddings, vector search, LLM, context window, documents

# llm-apps
slot task prompts=prompt engineering{system prompts, few-shot examples} | evals=evaluation harnesses{test sets, graders, regressions} | redteam=red teaming{jailbreaks, prompt injection} | guardrails=guardrails{moderation, output validation} | structured=structured output{JSON schema, function calling} | cost=cost and latency{caching, batching, model choice}
slot provider openai=OpenAI{GPT models, Responses API} | anthropic=Anthropic{Claude, Messages API} | gemini=Google Gemini{Vertex AI, Gemini API} | local=local models{Ollama, llama.cpp} | bedrock=Amazon Bedrock{model access, guardrails} | azure-openai=Azure OpenAI{deployments, content filters}
name {provider}-{task}
name llm-{task}-{provider}
title LLM apps on {provider}: {task}
desc Helps build LLM features on {provider}: {task}, with examples and measurements rather than guesses.
desc {task} for applications using {provider}.
use Use when the user builds with {provider:v} and asks about {task:v} or {task:v}.
use Use for LLM application engineering on {task}.
step Define what good output looks like, with examples.
step Work on {task:v}.
step Measure on a fixed test set.
step Iterate and record what changed.
vocab LLM, prompts, tokens, latency, evaluation, model

# mlops
slot tool mlflow=MLflow{tracking, model registry} | wandb=Weights & Biases{runs, sweeps, artifacts} | kubeflow=Kubeflow{pipelines, KServe} | sagemaker=SageMaker{training jobs, endpoints} | vertex=Vertex AI{pipelines, endpoints} | bentoml=BentoML{services, bentos} | ray=Ray{Ray Serve, Ray Train}
slot task tracking=experiment tracking{runs, metrics, parameters} | deploy=model deployment{endpoints, versions, rollback} | monitoring=model monitoring and drift{data drift, prediction drift} | features=feature stores{online features, offline features} | batch=batch inference{scheduled scoring, throughput}
name {tool}-{task}
name mlops-{task}-{tool}
title MLOps with {tool}: {task}
desc Sets up {task} with {tool} so models move from notebook to production reliably.
desc MLOps helper for {task} on {tool}.
use Use when the user works with {tool:v} and needs {task:v} or {task:v}.
use Use for machine learning operations involving {task}.
step Review the current workflow.
step Set up {task} with {tool:v}.
step Automate and test the path end to end.
step Document how to roll back.
vocab MLOps, production models, pipelines, versions, monitoring

# labeling
slot tool label-studio=Label Studio{projects, labeling config} | prodigy=Prodigy{recipes, active learning} | cvat=CVAT{tasks, annotations} | doccano=doccano{projects, sequence labeling}
slot data images=images with bounding boxes{boxes, classes} | text=text spans{entities, spans} | audio=audio transcripts{segments, speakers} | docs=document classification{categories, guidelines}
name {tool}-{data}-labeling
name label-{data}-{tool}
title Labeling {data} in {tool}
desc Sets up annotation projects for {data} in {tool}, with guidelines and quality checks on labels.
desc Data labeling workflow for {data} using {tool}.
use Use when the user needs labeled data for {data:v} or asks about {tool}.
use Use for annotation projects involving {data}.
step Write annotation guidelines with examples.
step Configure {tool}.
step Run a pilot and measure agreement.
step Scale up with review.
vocab annotation, labels, guidelines, inter-annotator agreement, training data

=office
gloss document, file, page, template, formatting, styles, table, header, footer, fonts, margins, export, print, signature, form, fields, attachment, version, comments, tracked changes, merge, convert, batch, folder

# pdf-tools
slot task merge=merging and splitting{page ranges, bookmarks} | forms=filling forms{form fields, AcroForm, flattening} | ocr=OCR and text extraction{scanned pages, text layer} | redact=redaction{sensitive text, true redaction} | compress=compression{image downsampling, file size} | sign=digital signatures{certificates, signature fields} | pdfa=PDF/A archiving{archival, fonts embedded} | watermark=watermarks and stamps{overlay, page numbers} | tables=table extraction{tables, columns, CSV}
slot tool pypdf=pypdf and Python{PdfReader, PdfWriter} | qpdf=qpdf{command line, linearization} | ghostscript=Ghostscript{gs, PDF settings} | acrobat=Adobe Acrobat{actions, Preflight} | pdfjs=pdf-lib and Node.js{pdf-lib, JavaScript}
name pdf-{task}-{tool}
name {tool}-pdf-{task}
name pdf-{task}
title PDF {task} with {tool}
desc Handles PDF {task} with {tool}: reliable results on real-world files, including odd encodings and scanned pages.
desc Automates {task} for PDF documents using {tool}.
use Use when the user has PDF files and needs {task:v} or {task:v}, or mentions {tool}.
use Use for PDF processing involving {task}.
step Inspect the PDF: pages, text layer, forms, encryption.
step Do {task} with {tool:v}.
step Open the result and check a few pages by eye.
step Keep the original untouched.
vocab PDF files, pages, documents, Acrobat, PDF processing
code python
	from pypdf import PdfReader, PdfWriter

	reader = PdfReader("input.pdf")
	writer = PdfWriter()
	for page in reader.pages[:3]:
	    writer.add_page(page)
	with open("first-three.pdf", "wb") as f:
	    writer.write(f)
end

# docx-tools
slot task mail-merge=mail merge{merge fields, recipient list} | tracked-changes=tracked changes and comments{revisions, accept, reject} | templates=templates and styles{styles, headings, numbering} | toc=tables of contents{heading levels, fields} | to-pdf=converting to PDF{export, fonts} | compare=comparing versions{redline, differences}
slot tool python-docx=python-docx{Document, paragraphs, runs} | vba=Word macros{VBA, automation} | pandoc=Pandoc{reference docx, filters} | libreoffice=LibreOffice{headless conversion, Writer} | google-docs=Google Docs{Apps Script, suggestions}
name docx-{task}-{tool}
name word-{task}-{tool}
title Word documents: {task} with {tool}
desc Automates {task} for Word documents (.docx) with {tool}, preserving formatting.
desc Word and .docx helper for {task} using {tool}.
use Use when the user works with Word files or .docx and needs {task:v} or {task:v}.
use Use for document automation involving {task}.
step Open the document and note styles and structure.
step Do {task} with {tool:v}.
step Check formatting in Word itself.
step Save as a new file.
vocab Word, .docx, paragraphs, styles, documents

# doc-convert
slot from markdown=Markdown{headings, lists, front matter} | docx=Word documents{styles, images} | html=HTML{tags, CSS} | latex=LaTeX{macros, bibliography} | pdf=PDF{layout, text layer} | odt=OpenDocument text{ODF} | epub=EPUB{chapters, ebook} | rtf=RTF{rich text}
slot to markdown=Markdown{headings, lists} | docx=Word documents{styles} | html=HTML{tags} | latex=LaTeX{macros} | pdf=PDF{layout} | epub=EPUB{ebook}
distinct from to
name {from}-to-{to}-doc
name convert-{from}-to-{to}
title Converting {from} to {to}
desc Converts {from} documents to {to}, keeping headings, tables, images and links intact where the formats allow.
desc Document conversion from {from} to {to} with Pandoc or similar tools, and a check of what was lost.
use Use when the user needs to turn {from} into {to}, or a converted document lost its {from:v}.
use Use for document format conversion from {from}.
step Inspect the source document's structure.
step Convert with a tool suited to {from} and {to}.
step Fix tables, images and special characters.
step Compare output to source side by side.
vocab document conversion, Pandoc, formatting, fidelity

# esign-forms
slot tool docusign=DocuSign{envelopes, templates, recipients} | adobe-sign=Adobe Acrobat Sign{agreements, workflows} | dropbox-sign=Dropbox Sign{signature requests} | pandadoc=PandaDoc{documents, pricing tables} | google-forms=Google Forms{questions, responses} | typeform=Typeform{logic jumps, responses} | jotform=Jotform{widgets, submissions}
slot task templates=templates and workflows{roles, routing, fields} | bulk=bulk sending{recipient lists, merge fields} | reminders=reminders and tracking{status, expiration} | export=exporting responses{CSV, integrations}
name {tool}-{task}
name {tool}-forms-{task}
title {tool}: {task}
desc Sets up {task} in {tool} so documents and forms get completed without chasing.
desc Helps with {task} for e-signature and forms in {tool}.
use Use when the user sends documents for signature or collects forms with {tool} and needs {task:v}.
use Use for e-signature and online form workflows in {tool}.
step Map the people and steps involved.
step Configure {task} with {tool:v}.
step Test with internal recipients.
step Roll out and monitor completion.
vocab e-signature, forms, signers, documents, completion

=projects
gloss project, roadmap, milestone, sprint, backlog, epic, story, task, estimate, deadline, dependency, stakeholder, priority, scope, risk, status, retrospective, standup, velocity, kanban, scrum, OKR, goal, launch, requirement, acceptance criteria

# pm-tools
slot tool jira=Jira{JQL, boards, workflows, epics} | linear=Linear{cycles, projects, triage} | asana=Asana{projects, sections, rules} | trello=Trello{boards, lists, Butler} | clickup=ClickUp{spaces, views} | monday=monday.com{boards, automations} | github-projects=GitHub Projects{views, fields, iterations} | notion=Notion{databases, views, relations}
slot task sprint=sprint planning{capacity, sprint goal} | backlog=backlog grooming{prioritization, duplicates, stale tickets} | roadmap=roadmaps{timeline, quarters, themes} | status=status reports{progress, blockers} | automation=automation rules{triggers, transitions} | migration=migrating between tools{import, field mapping}
name {tool}-{task}
name {tool}-pm-{task}
title {tool}: {task}
desc Helps teams with {task} in {tool}, keeping the work visible and the tool uncluttered.
desc Project management in {tool}: {task}.
use Use when the team plans work in {tool} and needs {task:v} or {task:v}.
use Use for project management work on {task} in {tool}.
step Look at how the team uses {tool} today.
step Do {task} with {tool:v}.
step Share with the team and adjust.
step Set a cadence to keep it current.
vocab project management, tickets, issues, boards, planning

# product-docs
slot doc prd=product requirements documents{problem, goals, requirements} | user-stories=user stories with acceptance criteria{as a user, given when then} | okrs=OKRs{objectives, key results} | release-plan=release plans{phases, rollout, communication} | competitive=competitive analyses{competitors, feature comparison} | interviews=user interview syntheses{themes, quotes, insights} | pricing=pricing experiments{price points, packaging}
slot product b2b=a B2B SaaS product{admins, integrations} | consumer=a consumer mobile app{retention, onboarding} | marketplace=a marketplace{buyers, sellers, liquidity} | devplatform=a developer platform{APIs, SDKs} | hardware=a hardware product{manufacturing, firmware}
name {doc}-{product}
name {product}-{doc}
title {doc} for {product}
desc Writes {doc} for {product}: grounded in customer evidence, specific about scope, and easy for engineering and design to act on.
desc Product management helper: {doc} for {product}.
use Use when a product manager needs {doc:v} or {doc:v} for {product}.
use Use for product management documents about {product}.
step Gather context: customers, data, constraints.
step Draft {doc} with {doc:v}.
step Review with engineering and design.
step Track open questions and decisions.
vocab product management, customers, requirements, priorities, discovery

# ecommerce
slot platform shopify=Shopify{products, collections, Liquid, apps} | woocommerce=WooCommerce{WordPress, products, extensions} | magento=Adobe Commerce (Magento){catalog, extensions} | bigcommerce=BigCommerce{catalog, scripts} | amazon=Amazon Seller Central{listings, ASINs, FBA} | etsy=Etsy{listings, shop}
slot task import=bulk product import{CSV import, variants, images} | inventory=inventory sync{stock levels, warehouses} | shipping=shipping rules{rates, zones, carriers} | discounts=discount codes and promotions{coupons, sales} | abandoned=abandoned cart recovery{reminders, incentives} | orders=order exports{orders, fulfillment, CSV}
name {platform}-{task}
name {platform}-store-{task}
title {platform} store: {task}
desc Helps online store owners on {platform} with {task}, without breaking live listings.
desc Ecommerce operations on {platform}: {task}.
use Use when the user sells on {platform} and needs {task:v} or {task:v}.
use Use for ecommerce store management on {platform}.
step Export current data as a backup.
step Prepare the {task} with {platform:v}.
step Test on a few products or orders first.
step Apply to all and verify in the storefront.
vocab online store, ecommerce, products, orders, customers, storefront

# clinical-docs
slot note soap=SOAP notes{subjective, objective, assessment, plan} | discharge=discharge summaries{hospital course, medications, follow-up} | referral=referral letters{reason for referral, history} | patient-ed=patient education handouts{plain language, reading level} | prior-auth=prior authorization letters{medical necessity, payer criteria}
slot specialty primary=primary care{chronic conditions, preventive care} | cardiology=cardiology{ECG, heart failure} | pediatrics=pediatrics{growth, vaccinations} | mental-health=mental health{therapy, assessments} | physio=physical therapy{range of motion, exercise plans} | dental=dentistry{treatment plans, charting}
name {specialty}-{note}
name {note}-{specialty}
title {note} in {specialty}
desc Drafts {note} for {specialty} from clinician notes, structured and concise, for the clinician to review and sign.
desc Clinical documentation helper for {specialty}: {note}.
use Use when a clinician in {specialty} needs {note:v} or {note:v} drafted.
use Use for medical documentation in {specialty}; never as medical advice.
step Gather the clinician's notes and the template in use.
step Structure the {note} with {note:v}.
step Keep only what the clinician stated; flag gaps.
step Return for clinician review.
vocab clinical documentation, patient, clinician, medical records, privacy, HIPAA

# events
slot event conference=conferences{speakers, sessions, venue} | offsite=team offsites{agenda, activities, travel} | webinar=webinars{registration, slides, Q&A} | hackathon=hackathons{teams, judging, prizes} | launch=product launch events{press, demos} | meetup=community meetups{speakers, sponsors}
slot artifact run-of-show=a run of show{timings, cues, owners} | budget=a budget{costs, vendors, contingency} | comms=attendee communications{invitations, reminders, follow-ups} | checklist=a vendor and logistics checklist{catering, AV, venue}
name {event}-{artifact}
name {event}-planning-{artifact}
title Planning {event}: {artifact}
desc Plans {event} with {artifact}, so nothing is left to the last day.
desc Event planning helper: {artifact} for {event}.
use Use when the user organizes {event:v} and needs {artifact:v}.
use Use for event planning involving {event}.
step Ask for date, size, budget and goals.
step Draft {artifact} with {artifact:v}.
step Assign owners and deadlines.
step Review a week before and after the event.
vocab event planning, attendees, logistics, schedule, vendors
`
