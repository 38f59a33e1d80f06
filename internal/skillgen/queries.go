package skillgen

import (
	"fmt"
	"strings"
)

// Query is a search and the names of every skill that answers it.
type Query struct {
	Text string
	Want []string
}

// Queries returns the queries that have an answer among skills, each with
// the names of all the skills that answer it, in catalog order. With a
// catalog of Catalog(n) for n ≥ 10,000 plus the built-in examples (see
// WithExamples), every query has one.
func Queries(skills []Skill) []Query {
	var out []Query
	for _, q := range queryList {
		alts, err := parseSpec(q.want)
		if err != nil {
			panic(err) // queryList is fixed; TestQuerySpecs checks it
		}
		var want []string
		for _, s := range skills {
			for _, a := range alts {
				if a.matches(s) {
					want = append(want, s.Name)
					break
				}
			}
		}
		if len(want) > 0 {
			out = append(out, Query{Text: q.text, Want: want})
		}
	}
	return out
}

// alt is one way to answer a query: a skill by name, or a concept of a
// family with some slot values.
type alt struct {
	name string
	fam  string
	vals map[string][]string
}

func (a alt) matches(s Skill) bool {
	if a.name != "" {
		return s.Name == a.name
	}
	return s.concept != nil && s.concept.matches(a.fam, a.vals)
}

// parseSpec parses "=name | family key=v1,v2 key=v | …", checking that
// every family, slot and value exists.
func parseSpec(spec string) ([]alt, error) {
	families()
	var alts []alt
	for _, part := range strings.Split(spec, "|") {
		fields := strings.Fields(part)
		if len(fields) == 0 {
			return nil, fmt.Errorf("skillgen: query spec %q: empty alternative", spec)
		}
		if strings.HasPrefix(fields[0], "=") {
			alts = append(alts, alt{name: fields[0][1:]})
			continue
		}
		f, ok := familyByID[fields[0]]
		if !ok {
			return nil, fmt.Errorf("skillgen: query spec %q: no family %s", spec, fields[0])
		}
		a := alt{fam: f.id, vals: map[string][]string{}}
		for _, kv := range fields[1:] {
			k, v, _ := strings.Cut(kv, "=")
			var sl *slot
			for i := range f.slots {
				if f.slots[i].key == k {
					sl = &f.slots[i]
				}
			}
			if sl == nil {
				return nil, fmt.Errorf("skillgen: query spec %q: family %s has no slot %s", spec, f.id, k)
			}
			for _, val := range strings.Split(v, ",") {
				found := false
				for _, o := range sl.opts {
					found = found || o.slug == val
				}
				if !found {
					return nil, fmt.Errorf("skillgen: query spec %q: slot %s.%s has no value %s", spec, f.id, k, val)
				}
				a.vals[k] = append(a.vals[k], val)
			}
		}
		alts = append(alts, a)
	}
	return alts, nil
}

// queryList holds the queries, written the way people ask: paraphrases
// that avoid the descriptions' wording, abbreviations (k8s, PR, db, tf),
// other verb forms, bare keywords and long sentences. Each names what
// answers it; "=name" is a built-in example skill.
var queryList = []struct{ text, want string }{
	// devops
	{"pull the line items out of a scanned bill", "invoice-extract doc=invoice,utility-bill | pdf-tools task=tables"},
	{"terraform gcp review", "iac-review tool=terraform cloud=gcp"},
	{"is my tf plan safe to apply on aws", "iac-review tool=terraform,opentofu cloud=aws"},
	{"check pulumi changes for azure before merging", "iac-review tool=pulumi cloud=azure"},
	{"reusable terraform module for an s3 bucket", "iac-module tool=terraform,opentofu resource=bucket cloud=aws"},
	{"someone changed resources by hand in the console and now terraform wants to revert them", "iac-state task=drift tool=terraform,opentofu"},
	{"bring existing cloud resources under pulumi management", "iac-state task=import tool=pulumi"},
	{"terraform state is locked and won't release", "iac-state task=lock tool=terraform,opentofu"},
	{"helm chart for a cron job", "k8s-manifest workload=cronjob pack=helm"},
	{"k8s ingress yaml with tls", "k8s-manifest workload=ingress"},
	{"my pods keep restarting with CrashLoopBackOff on EKS", "k8s-debug symptom=crashloop platform=eks,kubernetes"},
	{"container killed with exit code 137 on gke", "k8s-debug symptom=oomkilled platform=gke,kubernetes"},
	{"why are my pods pending forever", "k8s-debug symptom=pending"},
	{"image pull errors from a private registry in openshift", "k8s-debug symptom=imagepull platform=openshift,kubernetes"},
	{"upgrading an AKS cluster to a newer kubernetes version", "k8s-ops op=upgrade platform=aks,kubernetes"},
	{"back up a kubernetes cluster with velero", "k8s-ops op=backup"},
	{"who has cluster-admin? audit k8s permissions", "k8s-ops op=rbac"},
	{"set up github actions for a python repo", "ci-pipeline lang=python ci=github-actions"},
	{"CI for a rust crate on gitlab", "ci-pipeline lang=rust ci=gitlab-ci"},
	{"jenkinsfile for building a java maven project", "ci-pipeline lang=java ci=jenkins"},
	{"ts monorepo ci on gh actions", "ci-pipeline lang=typescript ci=github-actions"},
	{"our circleci builds take 40 minutes, speed them up", "ci-fix ci=circleci problem=slow"},
	{"tests pass locally but randomly fail in github actions", "ci-fix ci=github-actions problem=flaky | testing task=flaky"},
	{"shrink my node docker image", "dockerfile lang=javascript,typescript goal=slim"},
	{"dockerize a django app", "dockerfile lang=python"},
	{"devcontainer for a go project", "dockerfile lang=go goal=devcontainer"},
	{"write up what happened in yesterday's outage for leadership", "postmortem incident=outage audience=executives"},
	{"blameless incident review after a bad deploy", "postmortem incident=bad-deploy"},
	{"what to do when the disk full alert fires in prometheus", "runbook alert=disk-full mon=prometheus"},
	{"on-call playbook for replication lag alerts in datadog", "runbook alert=replication-lag mon=datadog"},
	{"we're getting paged every night because the message queue backs up, can you write instructions for whoever is on call", "runbook alert=queue-backlog"},
	{"add opentelemetry tracing to a go service", "instrument lang=go tool=otel"},
	{"sentry error tracking for a ts app", "instrument lang=typescript,javascript tool=sentry"},
	{"splunk query to find a spike of errors", "log-search platform=splunk goal=errors"},
	{"trace one user's requests through loki logs", "log-search platform=loki goal=journey"},
	{"host a nextjs site on vercel", "deploy-app app=nextjs platform=vercel"},
	{"deploying a fastapi service to google cloud run", "deploy-app app=python-api platform=cloud-run"},
	{"ship a rails app to heroku", "deploy-app app=rails platform=heroku"},
	{"set up dmarc and dkim for our domain on cloudflare", "dns-certs provider=cloudflare task=email"},
	{"renew lets encrypt certs using the route53 dns challenge", "dns-certs provider=route53 task=tls"},
	{"rotate database passwords stored in aws secrets manager", "secrets vault=aws-secrets-manager task=rotation"},
	{"someone committed an API key to the repo, what now", "secrets task=leak | git-workflow task=history-cleanup | sec-incident incident=leaked-credentials"},
	{"our aws bill is huge because of NAT gateway traffic", "cloud-cost cloud=aws area=egress"},
	{"find unused disks and old snapshots in azure to save money", "cloud-cost cloud=azure area=idle"},
	{"harden ssh on an ubuntu server", "linux-admin distro=ubuntu task=ssh"},
	{"open a port in firewalld on rhel", "linux-admin distro=rhel task=firewall"},
	{"nginx rate limit config", "proxy-config server=nginx task=rate-limit"},
	{"301 redirects in apache .htaccess", "proxy-config server=apache task=redirects"},

	// data
	{"sync stripe data into snowflake every night", "etl-pipeline src=stripe dst=snowflake"},
	{"replicate postgres tables to bigquery", "etl-pipeline src=postgres dst=bigquery"},
	{"ingest hubspot deals into redshift", "etl-pipeline src=hubspot dst=redshift"},
	{"airflow DAG keeps failing on one task", "orchestration orch=airflow task=debug"},
	{"backfill a year of partitions in dagster", "orchestration orch=dagster task=backfill"},
	{"replace our crontab scripts with prefect", "orchestration orch=prefect task=migrate"},
	{"incremental dbt model on bigquery", "dbt wh=bigquery task=incremental"},
	{"add unique and not null tests to dbt models in snowflake", "dbt wh=snowflake task=tests | data-quality tool=dbt-tests"},
	{"slowly changing dimension type 2 with dbt", "dbt task=snapshots"},
	{"this postgres query is slow, here is the explain analyze output", "sql-tuning db=postgres task=query,plans"},
	{"which indexes should I add in mysql", "sql-tuning db=mysql task=indexes"},
	{"reduce bigquery costs of a query scanning too many bytes", "sql-tuning db=bigquery"},
	{"alembic migration to add a column without downtime on postgres", "db-migrations tool=alembic db=postgres"},
	{"rename a column safely in a rails app on mysql", "db-migrations tool=rails db=mysql"},
	{"set up a read replica for postgres", "db-ops db=postgres op=replication"},
	{"restore a mongodb backup", "db-ops db=mongodb op=backup"},
	{"db backup and restore for pg", "db-ops db=postgres op=backup"},
	{"too many connections error in postgres", "db-ops db=postgres op=pooling"},
	{"validate incoming CSV files before loading them", "data-quality target=files"},
	{"great expectations checks for the warehouse", "data-quality tool=great-expectations target=warehouse"},
	{"kafka consumer lag keeps growing", "streaming platform=kafka,redpanda task=lag"},
	{"avro schema evolution with the schema registry", "streaming task=schemas"},
	{"turn a csv into parquet", "convert-data from=csv to=parquet"},
	{"convert an excel spreadsheet to json", "convert-data from=excel to=json"},
	{"flatten nested json into a csv file", "convert-data from=json,ndjson to=csv"},
	{"xml to json converter", "convert-data from=xml to=json"},
	{"dedupe a customer list with slightly different company names in pandas", "data-cleaning data=names tool=pandas"},
	{"normalize phone numbers to international format", "data-cleaning data=phones"},
	{"fix messy date formats and timezones in sql", "data-cleaning data=dates tool=sql"},
	{"scrape job postings with scrapy", "web-scraping target=jobs tool=scrapy"},
	{"monitor competitor prices by scraping their product pages", "web-scraping target=prices"},

	// analytics
	{"power bi dashboard for the sales pipeline", "dashboard bi=power-bi subject=sales"},
	{"support ticket metrics in looker", "dashboard bi=looker subject=support"},
	{"grafana board for service uptime and error rates", "dashboard bi=grafana subject=infra"},
	{"did the new checkout page increase conversions? analyze the experiment", "ab-test metric=conversion"},
	{"bayesian a/b test readout", "ab-test method=bayesian"},
	{"how many users do I need for a split test", "ab-test | stats-test test=power"},
	{"build a signup funnel in mixpanel", "product-analytics tool=mixpanel task=funnel"},
	{"ga4 utm attribution report", "product-analytics tool=ga4 task=attribution"},
	{"tracking plan for segment events", "product-analytics tool=segment task=tracking"},
	{"predict next quarter's revenue with prophet", "forecasting subject=sales method=prophet"},
	{"forecast inventory demand for each SKU", "forecasting subject=demand"},
	{"sankey diagram in d3", "charts chart=sankey lib=d3"},
	{"heatmap with matplotlib", "charts chart=heatmap lib=matplotlib"},
	{"choropleth map of sales by state in plotly", "charts chart=map lib=plotly"},
	{"xlookup returning #N/A in excel", "spreadsheet app=excel task=formulas"},
	{"google sheets apps script to automate a report", "spreadsheet app=google-sheets task=macros"},
	{"pivot table in google sheets", "spreadsheet app=google-sheets task=pivots"},

	// finance
	{"extract transactions from bank statement PDFs into a spreadsheet", "invoice-extract doc=bank-statement out=csv,excel,google-sheets"},
	{"I have about two hundred PDF invoices from suppliers and need every line item in one Excel sheet so finance can reconcile them", "invoice-extract doc=invoice out=excel"},
	{"turn photos of my receipts into an expense csv", "invoice-extract doc=receipt out=csv | expenses task=build"},
	{"parse W-2 and 1099 forms into json", "invoice-extract doc=tax-form out=json"},
	{"reconcile the bank account in xero", "bookkeeping app=xero task=reconcile"},
	{"month end close checklist quickbooks", "bookkeeping app=quickbooks task=close"},
	{"DCF valuation model for investors", "financial-model model=dcf audience=investors"},
	{"how long is our runway? cash forecast for a startup", "financial-model model=cash-forecast audience=founders"},
	{"cap table with SAFE conversion", "financial-model model=cap-table"},
	{"UK self assessment tax return prep", "tax-prep region=uk task=filing"},
	{"do I need to charge sales tax on online orders shipped to other states", "tax-prep region=us task=sales-tax"},
	{"check employee expense reports for policy violations in concur", "expenses tool=concur task=audit"},
	{"sharpe ratio and max drawdown of my ETF portfolio", "investing task=risk asset=etfs"},
	{"backtest a crypto trading strategy", "investing task=backtest asset=crypto"},
	{"handle stripe webhooks idempotently", "payments provider=stripe task=webhooks"},
	{"respond to a chargeback in paypal", "payments provider=paypal task=disputes"},
	{"subscription billing with proration on stripe", "payments provider=stripe task=subscriptions"},

	// legal
	{"review this NDA before I sign it", "contract-review contract=nda"},
	{"vendor is trying to cap liability in the MSA, what should we push back on as the customer", "contract-review contract=msa side=customer"},
	{"redline a DPA against our playbook", "contract-review contract=dpa side=playbook"},
	{"privacy policy for an app with users in europe", "legal-drafting doc=privacy region=eu | compliance framework=gdpr task=policies"},
	{"cookie banner and cookie policy for california", "legal-drafting doc=cookies region=california"},
	{"write a DMCA takedown", "legal-drafting doc=dmca"},
	{"SOC2 readiness gap analysis", "compliance framework=soc2 task=gap"},
	{"fill out a security questionnaire from a customer", "compliance task=questionnaire"},
	{"HIPAA policies for a health startup", "compliance framework=hipaa task=policies"},
	{"can we use GPL npm packages in our commercial product", "oss-license eco=npm"},
	{"generate a NOTICE file for python dependencies", "oss-license eco=pypi"},

	// marketing
	{"keyword research for a shopify store", "seo task=keywords site=ecommerce"},
	{"technical seo audit of our saas website", "seo task=audit site=saas"},
	{"add json-ld structured data for rich results to blog articles", "seo task=schema site=blog"},
	{"write a case study for developers", "content-writing content=case-study audience=developers"},
	{"product descriptions for an online shop", "content-writing content=product-copy audience=ecommerce"},
	{"press release announcing our new b2b feature", "content-writing content=press-release"},
	{"linkedin content calendar", "social-media platform=linkedin task=calendar"},
	{"instagram captions with hashtags", "social-media platform=instagram task=captions"},
	{"tiktok ad creatives", "social-media platform=tiktok task=ads | ads platform=tiktok-ads"},
	{"our emails land in spam (mailchimp)", "email-marketing esp=mailchimp task=deliverability"},
	{"abandoned cart email flow in klaviyo", "email-marketing esp=klaviyo task=abandoned-cart"},
	{"welcome email sequence in hubspot for new leads", "email-marketing esp=hubspot task=drip"},
	{"set up conversion tracking for google ads", "ads platform=google-ads task=tracking"},
	{"meta ads ROAS report", "ads platform=meta-ads task=report"},
	{"brand voice guidelines for a fintech startup", "brand task=voice industry=fintech"},
	{"name ideas for a developer tool", "brand task=naming industry=devtools"},

	// design
	{"design a pricing page in figma", "ui-design artifact=pricing tool=figma"},
	{"mockup of an admin dashboard", "ui-design artifact=dashboard"},
	{"design tokens for colors and spacing with style dictionary", "design-system task=tokens tool=style-dictionary"},
	{"document our react components in storybook", "design-system task=docs tool=storybook"},
	{"is our web app accessible? WCAG audit", "accessibility target=web standard=wcag"},
	{"make our PDFs accessible for screen readers", "accessibility target=pdf"},
	{"remove backgrounds from product photos", "image-editing task=background"},
	{"bulk convert images to webp with sharp", "image-editing task=convert tool=sharp"},
	{"strip GPS location from photos before publishing them", "image-editing task=metadata"},
	{"make an investor pitch deck in google slides", "presentation deck=pitch tool=google-slides"},
	{"slides for a conference talk written in markdown", "presentation deck=talk tool=revealjs,marp"},
	{"my manager asked me to put together a deck for the quarterly business review next week, we use PowerPoint", "presentation deck=qbr tool=powerpoint"},
	{"sequence diagram in mermaid", "diagram type=sequence tool=mermaid"},
	{"ER diagram of the database in plantuml", "diagram type=erd tool=plantuml"},
	{"draw our AWS architecture", "diagram type=architecture,network"},

	// docs
	{"document our REST API from the openapi spec", "api-docs spec=openapi task=reference"},
	{"graphql api quickstart with examples", "api-docs spec=graphql task=quickstart"},
	{"set up versioned docs in docusaurus", "docs-site gen=docusaurus task=versioning"},
	{"move our docs from sphinx to mkdocs", "docs-site gen=mkdocs,sphinx task=migrate"},
	{"write a README for my open source library", "project-docs doc=readme project=library"},
	{"ADR for choosing postgres over mongo", "project-docs doc=adr"},
	{"migration guide for breaking changes in our CLI", "project-docs doc=migration project=cli"},
	{"translate missing keys in i18next json files", "localization format=json task=translate"},
	{"android strings.xml plurals", "localization format=android task=plurals"},
	{"proofread my research paper", "editing kind=academic"},
	{"make this UI copy follow the microsoft style guide", "editing kind=microcopy style=microsoft"},
	{"turn these meeting notes into minutes with action items", "internal-comms kind=minutes"},
	{"weekly status update email to stakeholders", "internal-comms kind=status channel=email"},
	{"announce a reorg in slack", "internal-comms kind=announcement channel=slack"},
	{"we need to let customers know about the outage and what we're doing about it", "internal-comms kind=customer-incident | support-replies issue=outage | postmortem incident=outage audience=customers"},

	// media
	{"cut the first 30 seconds of a video with ffmpeg", "video task=trim tool=ffmpeg"},
	{"compress an mp4 for the web", "video task=compress"},
	{"burn subtitles into a video", "video task=subtitles"},
	{"transcribe an interview recording with whisper", "audio task=transcribe tool=whisper"},
	{"remove background hiss from a podcast", "audio task=denoise"},
	{"normalize podcast loudness to -16 LUFS", "audio task=loudness"},
	{"convert srt to vtt", "captions format=srt task=convert"},
	{"subtitles are out of sync by two seconds", "captions task=sync"},

	// education
	{"lesson plan on photosynthesis for 7th grade", "lesson-plan subject=biology level=middle-school"},
	{"university lecture plan for intro algorithms", "lesson-plan subject=computer-science level=university"},
	{"quiz on the french revolution with answer key", "assessment kind=quiz subject=history"},
	{"rubric for grading essays on novels", "assessment kind=rubric subject=literature"},
	{"I'm a teacher and need a worksheet with practice problems on fractions for my students", "assessment kind=worksheet subject=math"},
	{"import quiz questions into canvas", "lms lms=canvas task=quiz-import"},
	{"export grades from moodle", "lms lms=moodle task=gradebook"},
	{"help me understand derivatives step by step", "tutoring topic=calculus"},

	// science
	{"differential expression analysis of rna-seq counts", "lab-analysis field=rnaseq"},
	{"count cells in fluorescence microscopy images", "lab-analysis field=microscopy"},
	{"anova in R with post hoc tests", "stats-test test=anova tool=r"},
	{"Kaplan-Meier survival curves in python", "stats-test test=survival tool=python"},
	{"respond to reviewer comments on my manuscript", "paper-writing task=reviewers"},
	{"NSF grant proposal specific aims", "paper-writing task=grant"},
	{"format my references as bibtex", "paper-writing task=citations"},

	// sales
	{"clean up stale deals in salesforce", "crm crm=salesforce task=hygiene"},
	{"merge duplicate contacts in hubspot", "crm crm=hubspot task=dedupe"},
	{"cold email to enterprise IT buyers", "outreach channel=cold-email segment=enterprise,it-leaders"},
	{"follow up email after a demo", "outreach channel=follow-up"},
	{"answer an RFP from a school district", "sales-docs doc=rfp industry=education"},
	{"battlecard against a competitor", "sales-docs doc=battlecard"},
	{"summarize this discovery call transcript from gong", "call-analysis source=gong task=summary"},
	{"MEDDIC qualification from call recordings", "call-analysis task=qualification"},

	// support
	{"reply to a customer asking for a refund", "support-replies issue=refund"},
	{"customer is furious and wants a manager, help me respond on chat", "support-replies issue=angry channel=chat"},
	{"zendesk macros for common questions", "helpdesk tool=zendesk task=macros"},
	{"auto-route tickets by topic in freshdesk", "helpdesk tool=freshdesk task=triage"},
	{"write troubleshooting articles for our hardware product", "kb-articles product=hardware kind=troubleshooting"},

	// hr
	{"job description for a senior backend engineer", "hiring role=software-engineer doc=job-description"},
	{"interview questions for hiring a product manager", "hiring role=product-manager doc=interview"},
	{"remote work policy for employees in germany", "hr-policy policy=remote region=eu"},
	{"parental leave policy uk", "hr-policy policy=parental region=uk"},
	{"write my self-assessment for performance review season", "performance task=self-review"},
	{"PIP for an underperforming engineer", "performance task=pip"},
	{"30-60-90 plan for a new sales rep", "onboarding role=sales artifact=plan"},
	{"gender pay gap analysis in python", "people-analytics task=pay-equity tool=python"},

	// software
	{"review my go code for data races", "lang-review lang=go focus=concurrency | debugging lang=go problem=race"},
	{"security review of a php PR", "lang-review lang=php focus=security"},
	{"pytest fixtures for database tests", "testing fw=pytest task=write"},
	{"js unit tests with jest", "testing fw=jest task=write"},
	{"flaky playwright e2e tests", "testing fw=playwright task=flaky"},
	{"migrate from jest to vitest", "testing fw=vitest,jest task=migrate"},
	{"add type hints to an old python codebase", "refactor lang=python task=types"},
	{"convert callback code to async/await in js", "refactor lang=javascript,typescript task=async"},
	{"java app leaks memory", "debugging lang=java,kotlin problem=memory-leak"},
	{"profile slow rust code with a flame graph", "debugging lang=rust problem=profiling"},
	{"mojibake in a csv import in python", "debugging lang=python problem=encoding"},
	{"resolve merge conflicts in a gitlab MR", "git-workflow task=conflicts host=gitlab"},
	{"squash my commits before merging", "git-workflow task=rebase"},
	{"find which commit introduced a bug", "git-workflow task=bisect"},
	{"write a good PR description", "pr-workflow task=description"},
	{"break up a huge pull request into smaller ones", "pr-workflow task=split,stacked"},
	{"cursor pagination for a REST api", "api-design style=rest task=pagination"},
	{"version a graphql schema without breaking clients", "api-design style=graphql task=versioning"},
	{"react form validation", "frontend fw=react task=forms"},
	{"hydration mismatch error in next.js", "frontend fw=nextjs task=ssr"},
	{"vue state management", "frontend fw=vue task=state"},
	{"dark mode with tailwind", "css tool=tailwind task=dark-mode | design-system task=dark-mode tool=tailwind"},
	{"background jobs in django", "backend fw=django task=jobs"},
	{"file upload endpoint in spring boot", "backend fw=spring task=uploads"},
	{"shell completion for a cobra cli", "cli-tool stack=cobra task=completion"},
	{"distribute my go cli through homebrew", "cli-tool stack=cobra task=packaging | publish-package registry=homebrew"},
	{"upgrade to the next major version of an npm dependency", "deps-upgrade eco=npm task=major"},
	{"publish a python package to pypi", "publish-package registry=pypi task=first"},
	{"regex to match email addresses", "scripting task=regex"},
	{"jq filter to pull fields out of json", "scripting task=jq"},
	{"improve LCP on a wordpress site", "web-perf stack=wordpress task=vitals"},

	// security
	{"check npm deps for known vulnerabilities", "dependency-audit eco=npm | deps-upgrade eco=npm task=security"},
	{"scan docker images in ECR with trivy", "container-scan registry=ecr tool=trivy"},
	{"set up codeql for a java repo", "sast lang=java tool=codeql"},
	{"threat model for an AI agent with tool access", "threat-model system=llm-agent"},
	{"STRIDE analysis of our mobile app", "threat-model system=mobile method=stride"},
	{"write the report for a web app pentest", "pentest target=webapp phase=report"},
	{"employee clicked a phishing link, what do we do first", "sec-incident incident=phishing phase=triage,containment"},
	{"ransomware hit a file server", "sec-incident incident=ransomware"},
	{"add google login (OIDC) to a fastapi app", "auth protocol=oidc,oauth stack=fastapi"},
	{"passkeys in django", "auth protocol=passkeys stack=django"},
	{"sentinel rule for impossible travel sign-ins", "detection-rules siem=sentinel rule=impossible-travel"},
	{"find public s3 buckets in our aws accounts", "cloud-security cloud=aws area=exposure"},

	// mobile
	{"submit my iOS app to the app store", "mobile-release platform=ios task=store-submission"},
	{"push notifications in flutter", "mobile-release platform=flutter task=push"},
	{"in app subscriptions android", "mobile-release platform=android task=iap"},
	{"login screen in swiftui", "mobile-ui ui=swiftui screen=login"},
	{"android app starts slowly", "mobile-perf platform=android problem=startup"},
	{"react native app is too big", "mobile-perf platform=react-native problem=size"},

	// ml
	{"train an object detector in pytorch", "model-training task=detection fw=pytorch"},
	{"classify support emails by topic with scikit-learn", "model-training task=text-class fw=sklearn"},
	{"fine tune llama with lora on my own data", "llm-finetune model=llama method=lora,qlora"},
	{"chunk size for RAG over PDFs with pgvector", "rag store=pgvector task=chunking"},
	{"combine keyword and vector search in weaviate", "rag store=weaviate task=hybrid"},
	{"get JSON output reliably from claude", "llm-apps provider=anthropic task=structured"},
	{"test prompts against a fixed set of cases for openai", "llm-apps provider=openai task=evals"},
	{"detect model drift in production with sagemaker", "mlops tool=sagemaker task=monitoring"},
	{"annotate bounding boxes in label studio", "labeling tool=label-studio data=images"},

	// office
	{"merge several PDFs into one", "pdf-tools task=merge"},
	{"fill in a pdf form programmatically with python", "pdf-tools task=forms tool=pypdf"},
	{"shrink a huge PDF so I can email it", "pdf-tools task=compress"},
	{"black out names in a pdf before sharing it", "pdf-tools task=redact"},
	{"mail merge letters from a spreadsheet in word", "docx-tools task=mail-merge"},
	{"accept all tracked changes in a docx with python", "docx-tools task=tracked-changes tool=python-docx"},
	{"markdown to word", "doc-convert from=markdown to=docx"},
	{"convert a latex paper to html", "doc-convert from=latex to=html"},
	{"send a contract for signature with docusign templates", "esign-forms tool=docusign task=templates"},
	{"export typeform responses to csv", "esign-forms tool=typeform task=export"},

	// projects, commerce, health, events
	{"sprint planning in jira", "pm-tools tool=jira task=sprint"},
	{"move our issues from jira to linear", "pm-tools tool=linear,jira task=migration"},
	{"write a PRD for a marketplace feature", "product-docs doc=prd product=marketplace"},
	{"user stories with acceptance criteria for a mobile app", "product-docs doc=user-stories product=consumer"},
	{"bulk import products into shopify from a csv", "ecommerce platform=shopify task=import"},
	{"shipping zones and rates in woocommerce", "ecommerce platform=woocommerce task=shipping"},
	{"draft a SOAP note for a physical therapy visit", "clinical-docs note=soap specialty=physio"},
	{"prior auth letter for a cardiology procedure", "clinical-docs note=prior-auth specialty=cardiology"},
	{"run of show for our company offsite", "events event=offsite artifact=run-of-show"},
	{"budget for a hackathon", "events event=hackathon artifact=budget"},

	// the built-in examples
	{"is this PR ready to merge? look it over", "=code-review | lang-review"},
	{"review this diff for bugs and security issues", "=code-review | lang-review focus=security"},
	{"give feedback on my teammate's pull request", "=code-review | lang-review"},
	{"write a commit message for my staged changes", "=commit-messages"},
	{"conventional commits format", "=commit-messages"},
	{"reword my last few commits before the release", "=commit-messages | git-workflow task=rebase"},
	{"feat or fix? what type should my commit be", "=commit-messages"},
	{"how do I make my own agent skill", "=writing-skills"},
	{"the validator rejects the frontmatter of my SKILL.md", "=writing-skills"},
	{"we do the same release steps every week, package them up as a skill for the agent", "=writing-skills"},
	{"what should a skill description say so agents pick it", "=writing-skills"},
}
