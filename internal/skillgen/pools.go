package skillgen

// The generic sentences of a body, shared by every family. {v}, {g}, {t},
// {x} and {title} are as in a family's templates (see dsl.go).

var whenHeadings = []string{"When to use", "When to use this skill", "Use it when", "Triggers", "Scope", "When this applies"}

var prereqHeadings = []string{"Before you start", "Prerequisites", "Requirements", "What you need", "Setup", "Inputs"}

var stepHeadings = []string{"Steps", "Workflow", "Procedure", "How to do it", "Process", "Instructions", "Step by step"}

var exampleHeadings = []string{"Example", "Worked example", "Quick start", "Snippet", "Example commands", "Template"}

var pitfallHeadings = []string{"Pitfalls", "Common mistakes", "Troubleshooting", "Gotchas", "Watch out for", "Known issues"}

var outputHeadings = []string{"Output", "Deliverable", "What to hand back", "Result", "Output format", "Reporting"}

var extraHeadings = []string{"Edge cases", "Working with large inputs", "Tips", "Background", "Handling ambiguity",
	"Quality bar", "Communicating results", "Decisions", "Conventions", "Performance", "Security notes",
	"Collaboration", "Maintenance", "Limits", "Further reading", "Examples of good and bad", "Principles",
	"Style", "Validation", "Recovery", "Frequently asked questions", "Glossary", "Notes for reviewers"}

// tangents are things any workplace text mentions, whatever its subject.
var tangents = []string{"Slack", "email", "a CSV export", "a spreadsheet", "the wiki", "Jira", "a PDF", "the dashboard",
	"a screenshot", "Google Drive", "a shared folder", "the README", "a JSON file", "Confluence", "a Notion page", "the ticket", "the changelog", "a pull request", "the staging environment",
	"the team channel", "a status page", "the audit log", "a Markdown file", "a YAML config", "the runbook",
	"the issue tracker", "a zip archive", "a presentation", "Microsoft Teams", "a webhook", "a cron job", "the admin console", "a Git repository", "Excel"}

var intros = []string{
	"This skill walks through {title} from the first question to a result someone can act on.",
	"Follow these steps in order; each one says what to check before moving on.",
	"The goal is a result that a colleague can verify without redoing the work.",
	"Most requests of this kind fail on {v} or {v}, so the steps put those first.",
	"Keep the user's own terms for {v} and {g} in the output, even where the tools use others.",
	"It assumes access to {t} and to the files the user mentions; ask for anything missing.",
	"Work on a copy first, and keep the original {v} untouched until the result is checked.",
	"Prefer small, reversible changes, and say plainly what was not done.",
	"Everything here is meant to be repeatable: record the commands and settings used.",
	"Read the whole request before starting, since the details about {v} often come last.",
	"The skill is opinionated where the choice rarely matters, and explicit where it does.",
	"When in doubt about {g}, ask one short question instead of guessing.",
	"These notes distil what usually goes wrong with {title} and how to avoid it.",
	"It is written for {g} work, but the same approach holds for nearby tasks.",
}

var triggers = []string{
	"The user mentions {v} or {v}.",
	"A file or message refers to {v} and asks what to do about it.",
	"Someone asks for help with {g} and the context involves {x}.",
	"The request names {x} together with {v}.",
	"A teammate shares {t} about {v} and wants it handled.",
	"The task is a repeat of something done before for {g}.",
	"The user asks how to get started with {v}.",
	"There is a deadline and the work involves {v} and {g}.",
	"Something about {v} broke, or looks wrong, and needs a fix.",
	"An existing {v} needs to be updated, checked or explained.",
	"The user pastes output mentioning {v}.",
	"The request is vague but clearly about {x}.",
}

var prereqs = []string{
	"Access to {t} and permission to change {v}.",
	"The current {v}, or a recent copy of it.",
	"The name of the owner of {g}, for questions.",
	"A clear statement of what done looks like.",
	"Any existing notes on {v} from earlier attempts.",
	"A working setup of {x}, with credentials for a non-production environment.",
	"The deadline and the audience of the result.",
	"Sample data or an example of {v}.",
	"Agreement on which {g} is in scope.",
	"A place to record decisions, such as {t}.",
}

var genericSteps = []string{
	"Restate the goal in one sentence and confirm it with the user if anything about {v} is unclear.",
	"Make a copy of the inputs before changing anything.",
	"Collect the facts: current {v}, recent changes, and who depends on {g}.",
	"Write down assumptions about {v} so they can be checked later.",
	"Check the result against the original request, item by item.",
	"Note anything about {g} that was out of scope and mention it at the end.",
	"Ask for a quick review from someone who knows {x} when the change is risky.",
	"Keep a log of commands and decisions in {t}.",
	"Split the work into small batches and verify each before the next.",
	"Compare against a known-good {v} to spot differences early.",
}

var finalSteps = []string{
	"Summarize what changed, what was checked, and what is left, in a few lines.",
	"Hand back the result with a short note on how to verify it.",
	"Record follow-ups as tasks, with an owner and a date.",
	"Share the outcome in {t} and link the artifacts.",
	"Clean up temporary files, branches and test data.",
}

var codeIntros = []string{
	"A typical starting point:",
	"For example:",
	"Adapt this to the user's setup:",
	"The smallest version that works:",
	"Run something like the following, then inspect the output:",
	"This is the shape to aim for:",
}

var pitfalls = []string{
	"Changing {v} without a backup; keep one until the result is confirmed.",
	"Assuming the defaults for {g} are right for this case.",
	"Mixing several unrelated changes in one step, which makes problems hard to trace.",
	"Trusting {t} without checking its date: it may be stale.",
	"Skipping the check of {v} because it passed last time.",
	"Reporting numbers without saying where they came from.",
	"Using vague wording where the reader needs an exact {v}.",
	"Forgetting time zones, units or currencies when comparing {v}.",
	"Leaving secrets or personal data in logs, screenshots or {t}.",
	"Over-automating before the manual process for {g} is understood.",
	"Ignoring warnings about {v}; they usually point at the real problem.",
	"Silently dropping records that do not fit; count and report them instead.",
}

var advice = []string{
	"Start from the user's actual {v}, not an idealized example.",
	"If {v} is large, work on a sample first and scale up once the approach holds.",
	"Name things after what they mean to the reader, not after the tool that produced them.",
	"Write the summary first; it forces clarity about what matters.",
	"When two sources disagree about {v}, say so and cite both.",
	"Prefer boring, well-known approaches to {g} over clever ones.",
	"Keep {v} and {v} separate; mixing them causes most of the confusion in this area.",
	"A short table often explains {v} better than paragraphs of text.",
	"Record the version of every tool involved, including {x}.",
	"Measure before and after, and report both numbers.",
	"Treat warnings as questions to answer, not noise to suppress.",
	"If the request touches {g}, check who else relies on it before changing it.",
	"Ask for examples when the request describes {v} only in general terms.",
	"Stop and ask when a step would delete or overwrite data.",
	"Make the result easy to diff against the previous one.",
	"Keep personal data out of examples; use invented names and numbers.",
	"Defaults are a decision too: state them.",
	"When the deadline is tight, deliver the part about {v} first and say what follows.",
	"Link to {t} rather than copying its content, so there is one source of truth.",
	"Check units, encodings and locales early; they fail late and loudly otherwise.",
	"Use the same terms for {v} everywhere in the output.",
	"A checklist beats memory for anything done less than once a month.",
	"Leave the workspace as you found it, minus the problem.",
	"Document why, not only what: the reason is what future readers lack.",
	"Round numbers only at the end, and say how.",
	"Large changes to {g} deserve a dry run on a copy.",
	"If the user's terminology differs from the tool's, translate once and stick to it.",
	"Explain trade-offs in one or two sentences each; the user decides.",
	"Expect the first version to be wrong in small ways, and plan a review pass.",
	"Automate the second time, not the first.",
	"Prefer explicit configuration for {v} over implicit behaviour.",
	"Note which parts were checked by hand and which by a tool.",
	"Avoid jargon about {g} unless the audience uses it daily.",
	"Check the edges: empty inputs, duplicates, very large values, unusual characters.",
	"Where accuracy matters, verify a random sample by hand and report the error rate.",
	"Sensitive material about {v} stays in the systems approved for it.",
	"Keep a short changelog of what was done, with dates.",
	"A result nobody can reproduce is a guess; keep the inputs and the commands.",
	"Small screenshots or excerpts help reviewers more than long descriptions.",
	"If something looks too good, such as a sudden drop in {v}, check the data before celebrating.",
	"When handing over, say what you would do next and why.",
	"Give the reader the conclusion first and the details after.",
	"Respect existing conventions in {t}, even if you would choose differently.",
	"Flag anything irreversible before doing it, and wait for a yes.",
	"Reuse templates where the organization has them; consistency helps readers.",
	"Time-box exploration, then decide with what you know.",
	"For recurring work on {v}, propose a lightweight automation at the end.",
	"Quote error messages exactly; paraphrases hide the clue.",
	"Spell out acronyms at first use, such as those around {g}.",
	"Keep a glossary when the work spans several teams.",
	"Budget time for review; it usually catches something about {v}.",
	"Consider accessibility: readable contrast, alt text, plain language.",
	"State the confidence of each finding: confirmed, likely, or a hunch.",
	"Cross-check totals: the parts should add up to the whole.",
	"Aim for the simplest {v} that meets the need, then stop.",
	"Write for a reader who was not in the room.",
	"If the data is incomplete, say how incomplete, in numbers.",
	"Track open questions in a list and close each one explicitly.",
	"Version the outputs, even informally, so feedback refers to the right one.",
	"Latency, cost and quality pull against each other; say which one wins here.",
	"Test with realistic {v}, including the messy cases.",
	"Keep ownership clear: every follow-up gets one name.",
	"A diagram of how {v} flows often reveals the missing step.",
	"When migrating {g}, run old and new side by side for a while.",
	"Ask whether {v} is needed at all before optimizing it.",
	"Seasonality, holidays and quarter ends distort comparisons; adjust or mention it.",
	"Prefer reversible defaults for anything touching customers.",
	"Label drafts as drafts.",
	"Before touching {g}, write a two-line plan and share it; objections are cheaper now than later.",
	"People reading the result will skim: bold the verdict, keep paragraphs short, and put numbers in tables.",
	"Inherited {v} often carries undocumented workarounds; ask before removing anything that looks odd.",
	"Whenever {g} and {g} interact, describe the interaction explicitly instead of assuming the reader knows it.",
	"Estimates are ranges, not points; give a low and a high figure and say what would move them.",
	"Mistakes with {v} tend to surface weeks later, so leave breadcrumbs: dates, owners, links.",
	"Vendor documentation for {x} changes often; note the date you read it.",
	"A colleague new to {g} should be able to follow the notes without a meeting.",
	"Regulated data needs extra care: check retention, consent and who may see it.",
	"Unexpected spikes in {v} deserve a look at holidays, outages, releases and campaigns before any theory.",
	"Surface disagreements early; silent compromises resurface as rework.",
	"Whatever the tooling, the reasoning behind {g} choices belongs in writing.",
	"Copy exact identifiers, such as {v} names, instead of retyping them.",
	"Beware of survivorship bias: the records that remain are not a random sample.",
	"Check that dependencies on {x} are pinned, so next month's run gives the same answer.",
	"If stakeholders disagree about priorities, list the options with costs and let the owner choose.",
	"Translate internal jargon into the customer's vocabulary when the output leaves the team.",
	"Accessibility and internationalization are cheaper at the start than retrofitted.",
	"Archive superseded versions instead of deleting them; someone will ask.",
	"Guard against off-by-one errors in dates, pages and ranges; they are the most common slip here.",
	"Do not optimize {v} before it is correct.",
	"Batch similar changes together, but never unrelated ones.",
	"Give each artifact a descriptive filename with a date, for example report-2024-05-01.",
	"Avoid screenshots of text; paste the text so it can be searched.",
	"When automation fails halfway, it must be safe to rerun from the start.",
	"Note the environment used: operating system, region, account, and version of {x}.",
	"Compare with last quarter and last year, not just last week.",
	"Prefer open, documented formats for anything meant to last.",
	"Obvious questions are worth asking: what problem does {v} solve for whom?",
	"Escalate blockers within a day instead of waiting for the next meeting.",
	"Examples beat rules: show one good and one bad {v} side by side.",
	"Read existing discussions in {t} before proposing something new.",
	"Consistency across {g} matters more than any single clever choice.",
	"Where legal, financial or safety questions arise, recommend an expert review.",
	"Keep an eye on costs: licences, compute, storage and people's time.",
	"Sketch the end state before choosing tools.",
	"Rehearse anything that happens in front of an audience.",
	"Handle failure paths explicitly: timeouts, partial results, missing permissions.",
	"Make defaults safe and overrides deliberate.",
	"Each claim about {v} should point to evidence: a query, a file, a quote.",
	"Mention who was consulted, so readers know whose view is represented.",
	"Hidden manual steps in {g} are where repeatability breaks; write them down.",
	"Neutral wording keeps discussions about problems, not people.",
	"Tidy inputs make tidy outputs; spend time on cleaning before analysis.",
	"Summaries lose nuance; link the full material for those who need it.",
	"Check licence terms before reusing third-party material.",
	"Prefer incremental delivery: something useful this week beats everything next month.",
	"Plan for the second run: how will next month's update work?",
	"Measure what users experience, not only what systems report.",
}

var checks = []string{
	"The result matches the request.",
	"Every {v} was checked against the source.",
	"No secrets or personal data appear in the output.",
	"Assumptions are written down.",
	"Someone else could repeat the work from the notes.",
	"The {g} owner was told about anything that changed.",
	"Numbers add up and units are stated.",
	"Open questions are listed with owners.",
	"Links to {t} work.",
	"The summary fits on one screen.",
}

var outputs = []string{
	"Return a short summary first, then the details.",
	"List every change with the reason for it.",
	"Include the commands or formulas used, so the result can be reproduced.",
	"Attach the files produced and say where the originals are.",
	"Call out risks about {v} in a separate list.",
	"Mark anything uncertain as such.",
	"Keep the format the user asked for; default to Markdown.",
	"End with next steps, each with an owner.",
}

var refWhat = []string{"definitions of {v} and {v}", "the full list of options for {x}", "longer examples", "edge cases around {v}", "the settings used by the team", "a glossary of {g} terms"}

var refWhen = []string{"the short version above is not enough", "the user asks about {v}", "a step fails", "working on an unusual {v}"}
