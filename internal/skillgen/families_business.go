package skillgen

var businessText = `
$region us=the US{federal law, state law, at-will employment, FLSA} | uk=the UK{UK GDPR, HMRC, employment tribunals} | eu=the EU{GDPR, works councils, EU directives} | india=India{Shops and Establishments Act, PF} | canada=Canada{provincial law, CRA} | australia=Australia{Fair Work Act, superannuation}

=finance
gloss invoice, receipt, ledger, general ledger, journal entry, accounts payable, accounts receivable, reconciliation, balance sheet, income statement, cash flow, accrual, deferred revenue, chart of accounts, fiscal year, quarter, month-end close, audit trail, tax, VAT, sales tax, currency, exchange rate, vendor, customer, payment terms, due date, purchase order, approval, budget, forecast, variance, margin, revenue, expense, cost center, GAAP, IFRS, CFO, controller
code python
	import pdfplumber, csv

	rows = []
	with pdfplumber.open("invoice.pdf") as pdf:
	    for page in pdf.pages:
	        for table in page.extract_tables():
	            rows.extend(table[1:])
	with open("lines.csv", "w", newline="") as f:
	    csv.writer(f).writerows(rows)
end

# invoice-extract
slot doc invoice=invoices{line items, invoice number, VAT, totals, supplier} | receipt=receipts{merchant, totals, tips, tax} | bank-statement=bank statements{transactions, balances, dates, descriptions} | purchase-order=purchase orders{PO number, quantities, unit prices} | utility-bill=utility bills{meter readings, billing period, usage} | payslip=payslips{gross pay, deductions, net pay} | tax-form=tax forms{W-2, 1099, box numbers} | card-statement=credit card statements{transactions, merchants, statement period}
slot out csv=CSV{rows, columns} | excel=Excel{xlsx, worksheets} | json=JSON{fields, records} | quickbooks=a QuickBooks import{IIF, import templates} | google-sheets=Google Sheets{shared sheet, rows}
name {doc}-to-{out}
name extract-{doc}-{out}
name {doc}-data-extraction-{out}
title Extracting data from {doc} into {out}
title {doc} to {out}
desc Extracts structured data from {doc} (PDF or scanned images) into {out}: {doc:v}, {doc:v} and totals, with checks that the numbers add up.
desc Reads {doc} in PDF or image form, pulls out the fields and tables, and writes them to {out} for bookkeeping or analysis.
desc Parses {doc}, including scanned copies that need OCR, and exports the data as {out}.
use Use when the user has a pile of {doc} and wants the data in {out}, or asks to capture {doc:v} without retyping.
use Use when digitizing {doc} for accounting, expense tracking or audits.
step Check whether each file has a text layer; run OCR on scans first.
step Find the fields that matter: {doc:v}, {doc:v}, dates and totals.
step Extract tables row by row, keeping the page number for each row.
step Validate: line items sum to the stated total, dates parse, currencies are stated.
step Write {out} with one row per item and a column for the source file.
note OCR confuses 0 and O, 1 and l, and decimal commas and points; check totals.
vocab OCR, scanned documents, text layer, tables, pdfplumber, Tesseract, field extraction, totals, accounts payable, bookkeeping

# bookkeeping
slot app quickbooks=QuickBooks Online{bank feeds, rules, classes} | xero=Xero{bank reconciliation, tracking categories} | freshbooks=FreshBooks{expenses, invoices} | sage=Sage{nominal codes, ledgers} | netsuite=NetSuite{subsidiaries, saved searches} | wave=Wave{transactions, receipts}
slot task reconcile=bank reconciliation{bank feed, unmatched transactions, statement balance} | close=month-end close{accruals, prepaid expenses, close checklist} | coa=chart of accounts cleanup{account mapping, merging accounts} | categorize=transaction categorization{rules, categories, splits} | payables=accounts payable{bills, approvals, payment runs} | payroll=payroll journal entries{wages, withholdings, liabilities}
name {app}-{task}
name {task}-{app}
title {task} in {app}
desc Guides {task} in {app}: the order of work, the reports to check and the adjustments to post.
desc Helps small businesses and accountants with {task} using {app}.
use Use when the user does bookkeeping in {app} and needs help with {task:v} or {task:v}.
use Use when the books in {app} do not match the bank or need tidying for {task}.
step Export the relevant reports from {app}.
step Work through {task:v} item by item.
step Post adjustments with clear memos.
step Tie out balances and save the supporting workpapers.
vocab bookkeeping, accountant, trial balance, adjusting entries, supporting documents, memo

# financial-model
slot model three-statement=a three-statement model{income statement, balance sheet, cash flow statement} | dcf=a DCF valuation{discount rate, terminal value, WACC} | saas=SaaS metrics{ARR, net revenue retention, CAC payback} | budget=budget vs actual{variance analysis, cost centers} | cash-forecast=a cash flow forecast{runway, burn, receivables timing} | cap-table=a cap table{shares, options pool, dilution, SAFEs} | unit-economics=unit economics{contribution margin, LTV, CAC} | loan=a loan amortization schedule{interest, principal, payment schedule}
slot audience founders=startup founders{fundraising, board} | cfo=a CFO{controls, planning} | investors=investors{due diligence, returns} | small-business=small business owners{cash, pricing}
name {model}-model-{audience}
name {model}-{audience}
title {model} for {audience}
desc Builds {model} in a spreadsheet for {audience}, with clear assumptions, formulas that can be audited and scenarios.
desc Creates and reviews {model} that {audience} can understand and change.
use Use when the user needs {model}, asks about {model:v}, or is preparing numbers for {audience:v}.
use Use when a financial model for {audience} is broken or hard to follow.
step Separate inputs, calculations and outputs on different sheets.
step Write down every assumption with its source.
step Build {model:v} and {model:v} with consistent signs and periods.
step Add scenarios and check that the model balances.
vocab assumptions, scenarios, sensitivity analysis, spreadsheet model, formulas, projections

# tax-prep
slot region us=US federal{IRS, Schedule C, estimated payments} | uk=UK{HMRC, self assessment, Making Tax Digital} | eu-vat=EU VAT{VAT returns, OSS, reverse charge} | canada=Canada{CRA, GST/HST} | australia=Australia{ATO, BAS, GST} | india=India{GST, TDS}
slot task filing=preparing a return{filing deadline, forms, supporting documents} | deductions=tracking deductible expenses{receipts, categories, home office} | sales-tax=sales tax on online sales{nexus, thresholds, marketplaces} | contractors=paying contractors{contractor forms, withholding, classification}
name {region}-tax-{task}
name {task}-{region}-tax
title {region} tax: {task}
desc Organizes {task} for {region}: what records to gather, which forms apply and deadlines, for a professional to review.
desc Helps freelancers and small companies with {task} under {region} rules; not a substitute for a tax adviser.
use Use when the user asks about taxes in {region}, mentions {region:v}, or needs help with {task:v}.
use Use when preparing {task} paperwork for {region}.
step Confirm the taxpayer type, period and jurisdiction.
step List the records needed for {task}.
step Organize figures by {region:v} category.
step Flag questions for a qualified tax professional.
vocab tax return, deadline, records, receipts, tax adviser, deductible, withholding

# expenses
slot tool expensify=Expensify{SmartScan, reports, policies} | concur=SAP Concur{expense types, approvals} | ramp=Ramp{cards, receipts, policies} | brex=Brex{cards, budgets} | spreadsheet=a spreadsheet{template, formulas}
slot task audit=auditing reports against policy{policy violations, duplicates, missing receipts} | build=building a report from receipts{receipts, categories, mileage} | travel=travel and per diem{per diem rates, hotels, flights}
name {tool}-expense-{task}
name {task}-expenses-{tool}
title Expenses in {tool}: {task}
desc Handles employee expenses in {tool}: {task}, with each item checked against the company policy.
desc Speeds up {task} for business expenses tracked in {tool}.
use Use when the user mentions expense reports, reimbursements, receipts or {tool:v}, or asks about {task:v}.
use Use for finance teams reviewing expenses in {tool}.
step Gather the policy and the expense items.
step Check each item for {task:v}.
step Flag exceptions with the reason.
step Summarize totals by category and person.
vocab reimbursement, expense policy, receipts, approvals, corporate card, mileage

# investing
slot task rebalance=portfolio rebalancing{target allocation, drift, tax lots} | risk=risk metrics{volatility, Sharpe ratio, drawdown, VaR} | backtest=strategy backtesting{historical prices, look-ahead bias, transaction costs} | dividends=dividend tracking{yield, payout dates, reinvestment} | options=options analytics{Greeks, implied volatility, payoff diagrams}
slot asset stocks=stocks{tickers, shares, exchanges} | crypto=crypto{tokens, wallets, exchanges} | bonds=bonds{yield to maturity, duration, coupons} | etfs=ETFs{expense ratios, index funds}
name {asset}-{task}
name {task}-{asset}-portfolio
title {task} for {asset}
desc Computes {task} for portfolios of {asset} from price and holdings data, with charts and caveats; educational, not financial advice.
desc Analyzes {asset} holdings: {task} explained with the numbers.
use Use when the user asks about {task:v} or {task:v} for {asset}, or shares a holdings spreadsheet.
use Use for personal or team investment analysis involving {asset}.
step Load holdings and price history.
step Compute {task:v} with clear formulas.
step Chart the results and explain them.
step State assumptions and limits; this is not advice.
vocab portfolio, returns, allocation, benchmark, historical data, risk

# payments
slot provider stripe=Stripe{PaymentIntents, webhooks, Checkout, Billing} | paypal=PayPal{orders API, IPN, webhooks} | adyen=Adyen{Drop-in, notifications, merchant accounts} | square=Square{Payments API, locations} | braintree=Braintree{Drop-in UI, vault, webhooks}
slot task checkout=checkout integration{payment form, 3D Secure, client secret} | webhooks=webhook handling{signatures, retries, idempotency keys} | subscriptions=subscription billing{plans, proration, dunning} | disputes=refunds and chargebacks{disputes, evidence, refunds} | payouts=payout reconciliation{payouts, fees, balance transactions}
name {provider}-{task}
name {provider}-payments-{task}
title {provider}: {task}
desc Implements {task} with {provider}: server and client code, test mode, edge cases and reconciliation with the books.
desc Helps developers and finance teams with {task} on {provider}.
use Use when the user integrates {provider}, mentions {provider:v} or {task:v}, or payments are failing.
use Use when building or debugging {task} on {provider}.
step Read the {provider} docs for {task} and the API version in use.
step Implement with {provider:v} in test mode first.
step Handle failures: declines, retries, duplicate events.
step Reconcile test transactions end to end.
vocab payments, API keys, test mode, currency, fees, idempotency, PCI

=legal
gloss contract, clause, agreement, party, obligation, liability, indemnity, warranty, termination, governing law, jurisdiction, confidentiality, intellectual property, data protection, personal data, consent, compliance, regulation, policy, redline, negotiation, counterparty, signature, effective date, renewal, breach, remedy, dispute resolution, arbitration, limitation of liability, force majeure, assignment, notice period, legal review, counsel
code markdown
	| Clause | Risk | Proposed change |
	|---|---|---|
	| Limitation of liability | High: uncapped for data breaches | Cap at 12 months' fees |
	| Auto-renewal | Medium: 90-day notice | Reduce to 30 days |
end

# contract-review
slot contract nda=NDAs{confidential information, term, mutual vs one-way} | msa=SaaS agreements and MSAs{service levels, uptime, data processing} | employment=employment contracts{non-compete, notice period, IP assignment} | lease=commercial leases{rent, break clause, repairs} | dpa=data processing agreements{subprocessors, SCCs, security measures} | sow=statements of work{deliverables, milestones, acceptance} | vendor=vendor agreements{pricing, SLAs, termination} | license=software license agreements{license grant, restrictions, audit rights}
slot side customer=the customer side{buyer, procurement} | vendor=the vendor side{seller, provider} | playbook=a company playbook{fallback positions, approved language}
name {contract}-review-{side}
name review-{contract}
name {contract}-redline-{side}
title Reviewing {contract} from {side}
desc Reviews {contract} from {side}: flags risky clauses, explains them in plain English and proposes redlines, for a lawyer to confirm.
desc Compares {contract} against {side} and lists deviations, risks and suggested wording.
use Use when the user shares a contract ({contract}) and asks what to watch out for, what to push back on, or how to redline it.
use Use when negotiating {contract:v} or {contract:v} terms.
step Identify the parties, the term and the governing law.
step Go clause by clause; flag {contract:v}, {contract:v}, liability and termination.
step Rate each issue high, medium or low for {side}.
step Propose replacement wording for the high-risk items.
step Summarize in a table; note that a qualified lawyer should review.
note This is not legal advice; say so and recommend counsel for anything material.
vocab redlines, clause-by-clause review, risk rating, fallback position, legal review, plain English summary

# legal-drafting
slot doc terms=terms of service{user obligations, acceptable use, disclaimers} | privacy=a privacy policy{data collected, legal basis, retention, user rights} | cookies=a cookie policy{cookie banner, consent, trackers} | aup=an acceptable use policy{prohibited content, enforcement} | eula=an end-user license agreement{license grant, restrictions} | dmca=a DMCA takedown notice{copyright, infringing content} | cease-desist=a cease and desist letter{demand, deadline}
slot region us=the US{state privacy laws, COPPA} | eu=the EU{GDPR, ePrivacy} | uk=the UK{UK GDPR, ICO} | california=California{CCPA, CPRA} | canada=Canada{PIPEDA}
name {doc}-{region}
name draft-{doc}-{region}
title Drafting {doc} for {region}
desc Drafts {doc} for a product serving {region}, in plain language, covering what {region:v} requires; a starting point for legal review.
desc Writes and updates {doc} for {region}, based on what the product actually does with data and content.
use Use when the user needs {doc} for a website or app, or asks what {doc} must say under {region:v}.
use Use when a company expands into {region} and its {doc} needs updating.
step Ask what the product does, what data it collects and where users are.
step Outline {doc} with the sections {region} expects.
step Draft in plain language, with {doc:v} explained.
step List open questions for counsel.
vocab legal text, plain language, disclosure, user rights, consent, jurisdiction, template

# compliance
slot framework soc2=SOC 2{trust services criteria, Type II, auditors} | iso27001=ISO 27001{ISMS, Annex A controls, statement of applicability} | hipaa=HIPAA{PHI, BAAs, safeguards} | gdpr=GDPR{lawful basis, DPIA, records of processing} | pci=PCI DSS{cardholder data, SAQ, segmentation} | ccpa=CCPA{consumer requests, do not sell} | fedramp=FedRAMP{NIST 800-53, authorization} | sox=SOX{ITGCs, financial controls}
slot task gap=gap assessment{controls, gaps, remediation plan} | evidence=evidence collection{screenshots, policies, audit requests} | policies=policy writing{information security policy, access control policy} | questionnaire=vendor security questionnaires{security questionnaire, SIG, CAIQ}
name {framework}-{task}
name {framework}-compliance-{task}
title {framework}: {task}
desc Helps with {framework} {task}: maps requirements to controls, finds gaps, and prepares what auditors ask for.
desc Supports {task} for {framework} programs at startups and growing companies.
use Use when the user is preparing for {framework}, mentions {framework:v} or an audit, or needs {task:v}.
use Use when a customer asks for {framework} evidence or a {task}.
step Confirm scope: systems, teams and period.
step Map {framework:v} requirements to existing controls.
step Do the {task}: {task:v} and {task:v}.
step Track open items with owners and dates.
vocab audit, controls, evidence, policies, risk register, compliance program, auditor

# oss-license
slot eco npm=npm packages{package.json, license field} | pypi=Python packages{PyPI, metadata} | go=Go modules{go.mod, vendored code} | maven=Maven artifacts{pom.xml, transitive dependencies} | cargo=Rust crates{Cargo.toml, cargo-deny} | rubygems=Ruby gems{gemspec, Bundler}
name {eco}-license-compliance
name license-audit-{eco}
title Open source license compliance for {eco}
desc Audits the open source licenses of {eco} dependencies, flags copyleft and unknown licenses, and produces the attribution notices to ship.
desc Checks {eco} dependency licenses against the company's allowed list.
use Use when the user asks whether dependencies' licenses allow commercial use, needs a NOTICE file, or mentions GPL, AGPL or license scanning for {eco}.
use Use before a release or due diligence review of a project with {eco:v}.
step Generate the full dependency list, including transitive ones.
step Collect each license with a scanner and fill gaps by hand.
step Classify licenses: permissive, weak copyleft, strong copyleft, unknown.
step Produce the attribution file and a list of issues for legal.
vocab open source licenses, MIT, Apache-2.0, GPL, AGPL, copyleft, SPDX, attribution, NOTICE file, SBOM

=marketing
gloss audience, persona, campaign, channel, funnel, awareness, consideration, conversion, call to action, landing page, brand voice, messaging, positioning, copy, headline, engagement, click-through rate, impressions, reach, budget, ROI, attribution, A/B test, content calendar, SEO, keywords, newsletter, lead, MQL, retargeting, creative, UTM parameters
code markdown
	**Headline:** Close your books in days, not weeks
	**Subhead:** Automated reconciliation for growing finance teams
	**CTA:** Start free trial
end

# seo
slot task keywords=keyword research{search volume, keyword difficulty, search intent} | audit=a technical SEO audit{crawl errors, canonical tags, sitemaps, page speed} | meta=titles and meta descriptions{title tags, meta descriptions, SERP snippets} | links=internal linking{anchor text, orphan pages, topic clusters} | schema=structured data{schema.org, JSON-LD, rich results}
slot site ecommerce=an online store{product pages, category pages} | saas=a SaaS website{feature pages, pricing page} | blog=a blog{articles, categories} | local=a local business{Google Business Profile, local citations} | news=a news site{articles, AMP, freshness}
name seo-{task}-{site}
name {site}-seo-{task}
title SEO for {site}: {task}
desc Improves search rankings for {site} through {task}, with a prioritized list of changes and how to measure them.
desc Does {task} for {site} and explains the findings to non-specialists.
use Use when the user wants more organic traffic, asks about Google rankings, or needs {task:v} or {task:v} for {site}.
use Use when doing SEO work on {site}.
step Gather data: Search Console, a crawl, analytics.
step Do the {task} focused on {site:v}.
step Prioritize fixes by impact and effort.
step Set up tracking to measure the change.
vocab search engine optimization, organic traffic, Google Search Console, rankings, SERP, crawl, backlinks

# content-writing
slot content blog-post=blog posts{outline, intro hook, headings} | newsletter=newsletters{sections, subject line} | case-study=case studies{customer quote, results, challenge} | whitepaper=whitepapers{research, executive summary} | landing-copy=landing page copy{hero, benefits, social proof} | product-copy=product descriptions{features, benefits, specs} | press-release=press releases{dateline, boilerplate, quotes} | video-script=video scripts{scenes, voiceover, hook} | show-notes=podcast show notes{timestamps, guests, links}
slot audience b2b-saas=B2B SaaS buyers{decision makers, ROI} | ecommerce=online shoppers{benefits, urgency} | nonprofit=nonprofit supporters{donors, impact stories} | developers=developers{code samples, precision} | healthcare=healthcare audiences{patients, clinicians, compliance}
name {content}-{audience}
name {audience}-{content}-writer
title Writing {content} for {audience}
desc Writes {content} for {audience}: researched, on-brand and structured for skimming, with a clear call to action.
desc Drafts and edits {content} aimed at {audience}, matching the brand's voice.
use Use when the user needs {content} or asks to improve a draft for {audience}.
use Use for copywriting and content marketing for {audience:v}.
step Ask for the goal, the audience and any source material.
step Outline with {content:v} and {content:v}.
step Draft, then cut anything the reader would skip.
step Check facts, claims and tone for {audience}.
vocab copywriting, tone of voice, outline, draft, editing, call to action, readability

# social-media
slot platform linkedin=LinkedIn{company page, carousels, thought leadership} | x=X (Twitter){threads, replies, character limits} | instagram=Instagram{Reels, Stories, captions, hashtags} | tiktok=TikTok{short video, trends, sounds} | facebook=Facebook{pages, groups, boosts} | youtube=YouTube{thumbnails, titles, Shorts} | reddit=Reddit{subreddits, community rules} | pinterest=Pinterest{pins, boards}
slot task calendar=a content calendar{posting schedule, themes, cadence} | captions=post copy and captions{hooks, hashtags, emojis} | analytics=performance reporting{engagement rate, reach, follower growth} | ads=paid social creative{ad formats, targeting, creative testing}
name {platform}-{task}
name {platform}-social-{task}
title {platform}: {task}
desc Plans and writes {task} for {platform}, adapted to how the platform works and what the brand wants to achieve.
desc Helps social media managers with {task} on {platform}.
use Use when the user manages a brand on {platform} and needs {task:v} or {task:v}.
use Use for social media marketing on {platform}.
step Ask for goals, audience and recent posts.
step Plan {task} around {platform:v}.
step Write or build the material.
step Define what success looks like and how to measure it.
vocab social media, posts, engagement, followers, community management, scheduling tools

# email-marketing
slot esp mailchimp=Mailchimp{audiences, journeys, merge tags} | hubspot=HubSpot{workflows, lists, lead scoring} | klaviyo=Klaviyo{flows, segments, ecommerce events} | sendgrid=SendGrid{dynamic templates, suppression lists} | braze=Braze{canvases, push, in-app messages} | customerio=Customer.io{campaigns, segments, liquid}
slot task drip=nurture sequences{drip campaign, onboarding emails, cadence} | subject-lines=subject line testing{open rates, preheaders} | deliverability=deliverability{spam folder, sender reputation, SPF and DKIM, bounces} | segmentation=segmentation{segments, personalization, lists} | abandoned-cart=abandoned cart flows{cart recovery, incentives}
name {esp}-{task}
name {task}-email-{esp}
title Email marketing in {esp}: {task}
desc Builds and improves {task} in {esp}, with copy, timing and metrics to watch.
desc Email marketing helper for {esp}: {task}, tested before sending to the whole list.
use Use when the user sends marketing email with {esp} and needs {task:v} or {task:v}.
use Use when email performance in {esp} drops or a new {task} is needed.
step Review current performance: opens, clicks, unsubscribes, complaints.
step Design the {task} with {esp:v}.
step Write the emails and preview on mobile.
step Test on a small segment, then roll out.
vocab email campaigns, open rate, click rate, unsubscribe, list hygiene, templates, personalization

# ads
slot platform google-ads=Google Ads{search campaigns, Performance Max, quality score} | meta-ads=Meta Ads{ad sets, audiences, Advantage+} | linkedin-ads=LinkedIn Ads{sponsored content, lead gen forms} | tiktok-ads=TikTok Ads{Spark Ads, creatives} | amazon-ads=Amazon Ads{sponsored products, ACoS} | microsoft-ads=Microsoft Ads{Bing, imported campaigns}
slot task structure=campaign structure{campaigns, ad groups, targeting} | copy=ad copy{headlines, descriptions, variants} | budget=budget pacing and bidding{bids, daily budget, CPA} | tracking=conversion tracking{pixel, conversion API, tags} | report=performance reports{ROAS, CPC, CTR}
name {platform}-{task}
name {platform}-campaign-{task}
title {platform}: {task}
desc Manages paid advertising on {platform}: {task}, with recommendations tied to cost and return.
desc Sets up and optimizes {task} for {platform} campaigns.
use Use when the user runs ads on {platform}, mentions {platform:v}, or needs help with {task:v}.
use Use for performance marketing work on {platform}.
step Review account structure and recent performance.
step Work on {task}: {task:v} and {task:v}.
step Make changes in small, measurable steps.
step Report results against the target cost per result.
vocab paid media, ad spend, ROAS, CPA, conversions, bidding strategy, audiences

# brand
slot task voice=a brand voice guide{tone, vocabulary, do and don't examples} | naming=product naming{name ideas, trademark check, domains} | tagline=taglines and slogans{short lines, positioning} | positioning=competitive positioning{competitors, differentiators, category} | messaging=a messaging framework{value propositions, proof points, pillars}
slot industry fintech=fintech{trust, security, regulation} | healthtech=health tech{patients, clinicians, privacy} | consumer=consumer apps{delight, habit} | devtools=developer tools{developers, docs, open source} | retail=retail{shoppers, stores, seasonality} | hospitality=hospitality{guests, experience, bookings}
name {industry}-{task}
name {task}-for-{industry}
title {task} for a {industry} company
desc Develops {task} for a {industry} company, grounded in its customers and competitors.
desc Creates {task} for {industry} brands, with options and rationale.
use Use when the user is building or refreshing a {industry} brand and needs {task:v}.
use Use for brand strategy work in {industry}.
step Ask about the company, customers and competitors.
step Research how {industry} competitors present themselves.
step Produce options for {task} with rationale.
step Test options against the audience and refine.
vocab brand strategy, differentiation, target audience, value proposition, brand guidelines

=sales
gloss pipeline, prospect, lead, opportunity, deal, quota, forecast, discovery call, demo, proposal, objection, champion, decision maker, procurement, close date, win rate, churn, renewal, upsell, account, territory, CRM, outbound, inbound, sequence, follow-up, qualification, MEDDIC, BANT, pricing, discount, contract value, ARR

# crm
slot crm salesforce=Salesforce{objects, reports, flows, Apex} | hubspot=HubSpot CRM{deals, pipelines, workflows, properties} | pipedrive=Pipedrive{deals, stages, activities} | zoho=Zoho CRM{modules, blueprints} | dynamics=Dynamics 365{entities, Power Automate} | close=Close{smart views, sequences}
slot task hygiene=pipeline hygiene{stale deals, close dates, next steps} | scoring=lead scoring{scoring model, fit, intent} | dedupe=deduplicating contacts{duplicates, merge rules, matching} | forecast=sales forecasts{forecast categories, commit, best case} | automation=workflow automation{triggers, field updates, tasks} | import=data import{CSV import, field mapping}
name {crm}-{task}
name {crm}-crm-{task}
title {crm}: {task}
desc Helps sales ops with {task} in {crm}: what to check, how to configure it and how to keep it clean.
desc Cleans up and automates {task} in {crm} so the pipeline reflects reality.
use Use when the user works in {crm} and asks about {task:v} or {task:v}.
use Use for sales operations and CRM administration in {crm}.
step Export or report on the current state in {crm}.
step Define rules for {task}.
step Configure {crm:v} or fix records in bulk.
step Check a sample and schedule a recurring review.
vocab sales operations, CRM data, records, fields, reports, admin

# outreach
slot channel cold-email=cold emails{subject line, personalization, first line} | linkedin=LinkedIn messages{connection request, InMail} | call-script=cold call scripts{opener, questions, voicemail} | follow-up=follow-ups after a demo{recap, next steps} | breakup=breakup emails{last touch, closing the loop}
slot segment smb=small businesses{owners, budget} | mid-market=mid-market companies{teams, process} | enterprise=enterprise accounts{stakeholders, security review} | founders=startup founders{speed, growth} | it-leaders=IT leaders{CIO, integration, security}
name {channel}-{segment}
name {segment}-{channel}-outreach
title {channel} for {segment}
desc Writes {channel} for selling to {segment}: short, specific, and about the prospect's problem rather than the product.
desc Drafts personalized {channel} sequences aimed at {segment}.
use Use when the user does outbound sales to {segment} and needs {channel:v} or {channel:v}.
use Use when prospecting {segment} or improving reply rates.
step Research the prospect and find one relevant trigger.
step Write {channel} with {channel:v}.
step Keep one ask per message.
step Plan the follow-up cadence.
vocab outbound, prospecting, reply rate, personalization, cadence, sequence, call to action

# sales-docs
slot doc proposal=sales proposals{scope, pricing, timeline} | rfp=RFP responses{requirements matrix, compliance answers} | quote=quotes and pricing sheets{line items, discounts, terms} | map=mutual action plans{milestones, owners, dates} | battlecard=competitive battlecards{competitor weaknesses, landmines, objection handling} | account-plan=account plans{whitespace, stakeholders, goals}
slot industry saas=software{integrations, security} | manufacturing=manufacturing{plants, supply chain} | healthcare=healthcare{HIPAA, clinicians} | education=education{schools, districts} | government=government{procurement rules, compliance} | retail=retail{stores, ecommerce}
name {doc}-{industry}
name {industry}-{doc}
title {doc} for {industry} deals
desc Writes {doc} for deals in {industry}, tailored to how {industry} buyers evaluate and purchase.
desc Builds {doc} that help close {industry} opportunities.
use Use when the user is working a {industry} deal and needs {doc:v} or {doc:v}.
use Use for sales enablement material aimed at {industry}.
step Gather deal context: buyer, needs, competition, timeline.
step Draft {doc} with {doc:v}.
step Address {industry:v} concerns explicitly.
step Review with the account team and legal where needed.
vocab sales enablement, deal, buyer, stakeholders, value, pricing, closing

# call-analysis
slot source gong=Gong{call recordings, trackers} | chorus=Chorus{call transcripts} | zoom=Zoom recordings{transcripts, meeting notes} | teams=Microsoft Teams recordings{transcripts}
slot task summary=discovery call summaries{pain points, next steps, stakeholders} | objections=objection analysis{objections, responses, patterns} | qualification=deal qualification{MEDDIC, BANT, gaps} | coaching=rep coaching notes{talk ratio, questions, feedback}
name {source}-{task}
name {task}-from-{source}
title {task} from {source}
desc Turns sales call transcripts from {source} into {task}, with quotes as evidence.
desc Analyzes {source} calls for {task}.
use Use when the user shares a sales call transcript or recording and wants {task:v} or {task:v}.
use Use for call review and deal coaching based on {source}.
step Read the transcript and identify speakers.
step Extract {task:v} with supporting quotes.
step Structure the output for the CRM or the manager.
step Note missing information to get on the next call.
vocab transcript, call notes, deal review, CRM notes, quotes

=support
gloss customer, ticket, agent, queue, priority, SLA, first response time, resolution time, CSAT, NPS, escalation, macro, knowledge base, help center, tone, empathy, refund, account, billing, bug, workaround, tier 1, tier 2, handoff, chatbot, self-service, deflection, backlog

# support-replies
slot issue refund=refund requests{refund policy, partial refunds} | billing=billing disputes{double charges, invoices} | password=password and login problems{reset link, two-factor, lockout} | shipping=shipping delays{tracking number, carrier, delivery estimate} | bug=bug reports{reproduction steps, workaround, engineering handoff} | feature=feature requests{roadmap, feedback} | cancel=cancellation requests{retention offer, downgrade} | outage=outage apologies{incident, credits, status page} | angry=angry customer escalations{de-escalation, manager, empathy}
slot channel email=email{subject, signature} | chat=live chat{short messages, quick replies} | social=social media replies{public reply, DM} | phone=phone scripts{call flow, hold}
name {issue}-reply-{channel}
name {channel}-{issue}-response
title Replying to {issue} over {channel}
desc Writes customer support replies to {issue} over {channel}: empathetic, accurate about policy, and clear about next steps.
desc Drafts {channel} responses for {issue} that resolve the problem in one touch where possible.
use Use when a support agent needs a reply to {issue:v} or {issue:v}, or asks how to respond to a customer on {channel}.
use Use for customer service messages about {issue}.
step Read the full conversation and account history.
step Acknowledge the problem in the customer's own terms.
step Explain what happens next with {issue:v}.
step Keep it short for {channel}; end with one clear next step.
vocab customer service, reply, tone, apology, policy, resolution, follow-up

# helpdesk
slot tool zendesk=Zendesk{triggers, macros, views, Guide} | intercom=Intercom{inbox, Fin, articles} | freshdesk=Freshdesk{automations, canned responses} | jsm=Jira Service Management{request types, queues, SLAs} | helpscout=Help Scout{workflows, saved replies, Docs} | service-cloud=Salesforce Service Cloud{cases, omni-channel}
slot task macros=macros and canned responses{saved replies, placeholders} | triage=ticket triage and routing{tags, routing rules, priorities} | sla=SLA reporting{breaches, response times} | kb=knowledge base articles{help center, article structure} | bot=chatbot flows{bot answers, handoff to agents} | csat=CSAT analysis{survey responses, detractors}
name {tool}-{task}
name {tool}-support-{task}
title {tool}: {task}
desc Sets up and improves {task} in {tool} so agents answer faster and customers get consistent help.
desc Support operations helper for {tool}: {task}.
use Use when the user administers {tool} and needs {task:v} or {task:v}.
use Use for support operations work on {task} in {tool}.
step Review current ticket data and agent feedback.
step Design {task} using {tool:v}.
step Test with sample tickets.
step Roll out and measure the effect on response times.
vocab support operations, tickets, agents, automation, reporting, help center

# kb-articles
slot product saas=a SaaS app{settings, integrations} | hardware=a hardware device{setup, firmware, warranty} | mobile=a mobile app{app store, permissions} | api=an API platform{API keys, rate limits} | store=an online store{orders, returns}
slot kind howto=how-to guides{steps, screenshots} | troubleshooting=troubleshooting articles{symptoms, causes, fixes} | faq=FAQs{questions, short answers} | release-notes=customer-facing release notes{new features, fixes}
name {product}-{kind}
name {kind}-articles-{product}
title {kind} for {product}
desc Writes {kind} for customers of {product}, in plain language, with steps that can be followed without help.
desc Creates help center {kind} for {product} from tickets and product notes.
use Use when the user needs {kind:v} or {kind:v} for {product}, or wants to reduce repetitive tickets.
use Use for self-service documentation for {product}.
step Find the top questions from recent tickets.
step Write one article per task or problem.
step Use {kind:v} and consistent terms.
step Test the steps on the real product.
vocab help center, self-service, articles, screenshots, search, deflection

=hr
gloss employee, candidate, hiring manager, recruiter, interview, job description, offer, onboarding, performance review, feedback, promotion, compensation, salary band, benefits, leave, policy, handbook, manager, team, culture, diversity, inclusion, engagement, attrition, headcount, org chart, HRIS, payroll, compliance, labor law, remote work

# hiring
slot role software-engineer=software engineers{coding, system design} | product-manager=product managers{roadmaps, discovery} | data-scientist=data scientists{statistics, modelling} | designer=product designers{portfolio, design critique} | account-executive=account executives{quota, pipeline} | support-agent=customer support agents{empathy, troubleshooting} | marketing-manager=marketing managers{campaigns, budget} | accountant=accountants{ledgers, close} | nurse=registered nurses{patient care, shifts} | warehouse=warehouse associates{shifts, safety}
slot doc job-description=job descriptions{responsibilities, requirements, inclusive language} | interview=interview questions and scorecards{competencies, rubric} | take-home=take-home assignments{exercise, evaluation criteria} | offer=offer letters{salary, start date, contingencies} | rejection=rejection emails{respectful tone, feedback}
name {role}-{doc}
name {doc}-{role}
title {doc} for {role}
desc Writes {doc} for hiring {role}: specific, fair and consistent with the company's level and pay.
desc Drafts {doc} for {role} roles.
use Use when the user is hiring {role} and needs {doc:v} or {doc:v}.
use Use for recruiting material for {role}.
step Ask for level, team, location and must-have skills.
step Draft {doc} with {doc:v}.
step Remove biased or unnecessary requirements.
step Review with the hiring manager.
vocab recruiting, hiring process, candidates, interview loop, evaluation, inclusive hiring

# hr-policy
slot policy remote=remote work{home office, core hours, equipment} | parental=parental leave{maternity, paternity, return to work} | pto=paid time off{vacation, accrual, carryover} | conduct=a code of conduct{harassment, reporting, investigations} | expenses=expense reimbursement{receipts, limits} | reviews=a performance review process{review cycle, ratings, calibration} | harassment=anti-harassment{reporting channels, training} | travel=business travel{bookings, per diem} | byod=bring your own device{devices, security, privacy}
slot region $region
name {policy}-policy-{region}
name {region}-{policy}-policy
title A {policy} policy for {region}
desc Drafts a {policy} policy for employees in {region}, consistent with {region:v}, for HR and counsel to review.
desc Writes and updates company {policy} policies for teams in {region}.
use Use when the user needs a {policy} policy or handbook section for {region}.
use Use when HR asks what a {policy} policy should cover in {region}.
step Ask about company size, locations and current practice.
step Check legal minimums in {region}.
step Draft the policy with {policy:v} and {policy:v}.
step List points for legal review.
vocab employee handbook, HR policy, eligibility, approval, legal minimums

# performance
slot task self-review=self reviews{accomplishments, impact} | peer-feedback=peer feedback{specific examples, growth areas} | manager-review=manager reviews{ratings, evidence} | promotion=promotion packets{scope, impact, next level} | pip=performance improvement plans{expectations, timeline, support} | one-on-one=1:1 agendas{topics, career growth}
slot level ic=individual contributors{craft, scope} | manager=engineering managers{team health, delivery} | executive=executives{strategy, organization}
name {task}-{level}
name {level}-{task}
title {task} for {level}
desc Helps write {task} for {level}: concrete evidence, balanced feedback and clear expectations.
desc Drafts {task} for {level} that are fair and specific.
use Use during review season or when the user needs {task:v} for {level}.
use Use for performance management documents for {level}.
step Gather evidence: goals, projects, feedback.
step Structure {task} around {task:v}.
step Use specific examples and avoid vague praise or criticism.
step Check tone and fairness.
vocab performance management, feedback, goals, impact, growth, calibration

# onboarding
slot role engineers=engineers{dev environment, codebase, first PR} | sales=sales reps{product training, CRM, shadowing} | support=support agents{tools, macros, shadowing} | contractors=remote contractors{access, NDAs} | interns=interns{mentor, project}
slot artifact plan=a 30-60-90 day plan{goals, milestones} | checklist=a first-week checklist{accounts, meetings, reading} | buddy=a buddy program{buddy, check-ins} | it-setup=an IT setup guide{laptop, accounts, access}
name onboarding-{role}-{artifact}
name {role}-{artifact}
title Onboarding {role}: {artifact}
desc Creates {artifact} for onboarding {role} so new hires are productive and welcome from day one.
desc Builds onboarding material for {role}: {artifact}.
use Use when the user is onboarding {role} and needs {artifact:v}.
use Use to improve new hire onboarding for {role}.
step Ask what new {role} struggle with today.
step Draft {artifact} with {artifact:v}.
step Assign owners for each item.
step Collect feedback after the first month.
vocab new hires, onboarding, first week, ramp-up, mentor, welcome

# people-analytics
slot task bands=salary bands{levels, market data, ranges} | pay-equity=pay equity analysis{gender pay gap, regression, adjustments} | attrition=attrition analysis{turnover, exit interviews, tenure} | engagement=engagement survey analysis{survey responses, eNPS, themes} | headcount=headcount planning{hiring plan, budget, org design}
slot tool excel=Excel{pivot tables, formulas} | sheets=Google Sheets{formulas, charts} | python=Python{pandas, statsmodels} | workday=Workday reports{custom reports, calculated fields}
name {task}-{tool}
name hr-{task}-{tool}
title {task} with {tool}
desc Runs {task} from HR data in {tool}, keeping personal data protected and results explained for leaders.
desc People analytics helper: {task} using {tool}.
use Use when the user works on {task:v} or {task:v} with HR data in {tool}.
use Use for people analytics questions about {task}.
step Agree on definitions and the population.
step Prepare the data in {tool}, removing unnecessary personal fields.
step Analyze {task:v}.
step Present findings with caveats and privacy in mind.
vocab HR data, people analytics, confidentiality, aggregates, trends
`
