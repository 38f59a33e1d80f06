package skillgen

var creativeText = `
$subject math=mathematics{fractions, algebra, geometry, equations} | biology=biology{cells, ecosystems, genetics} | chemistry=chemistry{reactions, periodic table, moles} | physics=physics{forces, energy, waves} | history=history{sources, timelines, causes} | literature=English literature{novels, poetry, themes} | computer-science=computer science{algorithms, programming, data structures} | spanish=Spanish{vocabulary, conjugation, conversation} | economics=economics{supply and demand, markets, inflation} | geography=geography{maps, climate, population}
$level elementary=elementary school{grade 3, hands-on activities} | middle-school=middle school{grade 7, group work} | high-school=high school{grade 11, exam preparation} | university=university{undergraduate, lectures, seminars} | adult=adult learners{workplace training, self-paced}

=design
gloss layout, grid, typography, color palette, contrast, spacing, hierarchy, component, design system, tokens, wireframe, mockup, prototype, user flow, usability, accessibility, responsive, breakpoints, icons, illustration, brand, style guide, handoff, Figma, design review, visual design, whitespace, alignment, interaction design

# ui-design
slot artifact landing=landing pages{hero, social proof, pricing teaser} | dashboard=dashboards{data density, filters, cards} | onboarding=mobile onboarding{welcome screens, permissions, progress} | settings=settings pages{sections, toggles, destructive actions} | pricing=pricing pages{plans, comparison table, FAQ} | checkout=checkout flows{cart, payment form, confirmation} | empty-states=empty states{first-run, illustrations, call to action} | tables=data tables{sorting, pagination, bulk actions}
slot tool figma=Figma{auto layout, components, variants} | sketch=Sketch{symbols, artboards} | penpot=Penpot{components, boards} | html=an HTML and CSS prototype{semantic HTML, CSS grid, flexbox}
name {artifact}-design-{tool}
name {tool}-{artifact}
name design-{artifact}-{tool}
title Designing {artifact} in {tool}
desc Designs {artifact} in {tool} with a clear hierarchy, real content and states for loading, errors and empty data.
desc Creates and critiques {artifact} designs in {tool}, following usability and accessibility principles.
use Use when the user wants to design or redesign {artifact}, or asks for feedback on {artifact:v} in {tool}.
use Use for UI and UX design work on {artifact}.
step Ask about users, goals and constraints.
step Sketch the structure: {artifact:v} and {artifact:v}.
step Build it in {tool} with {tool:v}.
step Review contrast, spacing and states; annotate for handoff.
vocab user interface, UX, visual hierarchy, states, annotations, design critique

# design-system
slot task tokens=design tokens{color tokens, spacing scale, typography scale} | docs=component documentation{usage guidelines, props, do and don't} | a11y=component accessibility{focus states, ARIA, keyboard navigation} | dark-mode=dark mode themes{semantic colors, contrast} | icons=icon sets{icon grid, stroke width, naming}
slot tool figma=Figma{variables, libraries} | storybook=Storybook{stories, controls, docs pages} | tailwind=Tailwind CSS{theme config, utilities} | mui=Material UI{theme, components} | style-dictionary=Style Dictionary{token transforms, platforms}
name {tool}-{task}
name design-system-{task}-{tool}
title Design system: {task} with {tool}
desc Builds and maintains {task} for a design system in {tool}, so design and code stay in sync.
desc Helps design system teams with {task} using {tool}.
use Use when the user maintains a design system and asks about {task:v} or {task:v} in {tool}.
use Use for design system work on {task}.
step Audit what exists today in design and code.
step Define {task} with {task:v}.
step Implement in {tool} with {tool:v}.
step Document and announce the change.
vocab design system, components, tokens, library, consistency, versioning

# accessibility
slot target web=web apps{ARIA, keyboard navigation, screen readers} | mobile=mobile apps{VoiceOver, TalkBack, touch targets} | pdf=PDF documents{tagged PDF, reading order, alt text} | email=email templates{semantic tables, alt text} | video=video{captions, audio description, transcripts} | charts=data visualizations{color blindness, text alternatives}
slot standard wcag=WCAG 2.2 AA{success criteria, conformance} | section508=Section 508{federal procurement, VPAT} | en301549=EN 301 549{European accessibility act, public sector}
name {target}-accessibility-{standard}
name {standard}-{target}-audit
title Accessibility of {target} against {standard}
desc Audits {target} for accessibility against {standard}, lists failures with the criteria they break, and explains fixes.
desc Checks and fixes accessibility of {target} to meet {standard}.
use Use when the user asks whether {target} is accessible, mentions {target:v} or {standard:v}, or needs a conformance report.
use Use for a11y reviews of {target}.
step Test with automated tools, then by hand with {target:v}.
step Map each issue to {standard} criteria.
step Rank issues by impact on users.
step Propose fixes with examples.
vocab accessibility, a11y, screen reader, contrast ratio, alt text, keyboard, conformance

# image-editing
slot task resize=batch resizing and compression{resize, quality, file size} | background=background removal{cutout, transparency, masks} | watermark=watermarking{overlay, opacity, position} | convert=format conversion to WebP and AVIF{WebP, AVIF, PNG, JPEG} | color=color correction{white balance, exposure, color profiles} | metadata=stripping EXIF metadata{EXIF, GPS location, privacy} | thumbnails=thumbnails and social cards{Open Graph images, crops}
slot tool imagemagick=ImageMagick{magick, mogrify} | pillow=Pillow{Python, PIL} | sharp=sharp{Node.js, pipelines} | photoshop=Photoshop{actions, scripts} | gimp=GIMP{Script-Fu, batch mode}
name {tool}-{task}
name images-{task}-{tool}
title Images: {task} with {tool}
desc Processes images in bulk with {tool}: {task}, without losing quality where it matters.
desc Automates {task} for photos and graphics using {tool}.
use Use when the user has many images and needs {task:v} or {task:v}, or asks how to do it in {tool}.
use Use for image processing tasks involving {task}.
step Check formats, sizes and color profiles of the inputs.
step Write the {tool} command or script for {task}.
step Run it on a few samples and compare visually.
step Run the batch into a new folder and report sizes before and after.
vocab images, photos, JPEG, PNG, batch processing, quality, pixels
code bash
	mkdir -p out
	magick mogrify -path out -resize '1600x1600>' -quality 82 -strip *.jpg
	du -sh . out
end

# presentation
slot deck pitch=pitch decks{problem, solution, market, traction, ask} | qbr=quarterly business reviews{results, goals, risks} | sales=sales decks{customer pain, demo flow, proof} | talk=conference talks{narrative, speaker notes} | training=training decks{learning objectives, exercises} | board=board updates{metrics, decisions needed}
slot tool powerpoint=PowerPoint{slide masters, pptx} | google-slides=Google Slides{themes, sharing} | keynote=Keynote{transitions, presenter notes} | revealjs=reveal.js{HTML slides, Markdown} | marp=Marp{Markdown slides, themes}
name {deck}-deck-{tool}
name {tool}-{deck}
title {deck} in {tool}
desc Builds {deck} in {tool}: a story that flows, one idea per slide, readable charts and speaker notes.
desc Creates and restructures {deck} with {tool}.
use Use when the user needs {deck:v}, a slide deck or presentation in {tool}, or wants an existing deck improved.
use Use for presentation work on {deck}.
step Ask for the audience, the goal and the time slot.
step Outline the story with {deck:v} and {deck:v}.
step Build slides in {tool}, one message each.
step Add speaker notes and rehearse timing.
vocab slides, deck, storyline, speaker notes, visuals, templates

# diagram
slot type architecture=architecture diagrams{services, data flows, boundaries} | sequence=sequence diagrams{participants, messages, lifelines} | erd=entity relationship diagrams{entities, relationships, cardinality} | flowchart=flowcharts{decisions, processes} | org-chart=org charts{reporting lines, teams} | network=network diagrams{subnets, firewalls, VPN} | c4=C4 model diagrams{context, containers, components}
slot tool mermaid=Mermaid{Markdown, flowchart syntax} | plantuml=PlantUML{UML, text diagrams} | graphviz=Graphviz{DOT language, layouts} | drawio=draw.io{diagrams.net, shapes} | excalidraw=Excalidraw{hand-drawn style, whiteboard} | lucidchart=Lucidchart{templates, collaboration}
name {type}-{tool}
name {tool}-{type}-diagram
title {type} with {tool}
desc Draws {type} with {tool}, laid out so the main path reads at a glance.
desc Generates {type} as {tool} code or files from a description or from source code.
use Use when the user wants to visualize a system or process as {type:v}, or asks for {tool} syntax.
use Use for diagramming {type} in {tool}.
step Ask what the diagram must explain and to whom.
step List the elements: {type:v} and {type:v}.
step Write it in {tool} with consistent naming.
step Render, check readability, and simplify.
vocab diagram, boxes and arrows, layout, legend, notation, diagrams as code
code mermaid
	sequenceDiagram
	    participant U as User
	    participant A as API
	    participant D as Database
	    U->>A: POST /orders
	    A->>D: INSERT order
	    D-->>A: id
	    A-->>U: 201 Created
end

=docs
gloss documentation, audience, outline, draft, headings, examples, style guide, tone, clarity, reader, reference, tutorial, how-to guide, explanation, glossary, link, version, changelog, review, edit, publish, Markdown, template, screenshot, table of contents, information architecture

# api-docs
slot spec openapi=OpenAPI{paths, schemas, operationId} | graphql=GraphQL{schema, queries, mutations} | grpc=gRPC and Protobuf{services, messages, proto files} | asyncapi=AsyncAPI{channels, messages, events}
slot task reference=reference documentation{endpoints, parameters, responses} | quickstart=quickstarts and examples{first request, authentication, code samples} | breaking=breaking change notes{deprecations, migration, versioning} | sdk=SDK docs{client libraries, method docs}
name {spec}-{task}
name {spec}-docs-{task}
title {spec}: {task}
desc Writes {task} for APIs described with {spec}, accurate to the spec and useful to developers who have never seen the API.
desc Produces and improves {task} from {spec} definitions.
use Use when the user needs API documentation, mentions {spec:v} or {spec:v}, or wants {task:v}.
use Use when documenting an API built with {spec}.
step Read the {spec} definition and note gaps.
step Write {task} with {task:v}.
step Test every example against a real environment.
step Publish with the version it applies to.
vocab API documentation, developers, endpoints, examples, authentication, errors, developer portal

# docs-site
slot gen docusaurus=Docusaurus{MDX, sidebars, versioned docs} | mkdocs=MkDocs{mkdocs.yml, Material theme} | sphinx=Sphinx{reStructuredText, autodoc, toctree} | hugo=Hugo{content, shortcodes, themes} | jekyll=Jekyll{Liquid, front matter, GitHub Pages} | vitepress=VitePress{Vue, Markdown} | mintlify=Mintlify{mint.json, components} | gitbook=GitBook{spaces, Git sync}
slot task setup=setting up a site{config, navigation, deploy} | versioning=versioned docs{versions, archives} | search=search{Algolia, local search index} | migrate=migrating from another tool{redirects, content conversion} | i18n=translations{locales, translated pages}
name {gen}-{task}
name {gen}-docs-{task}
title {gen}: {task}
desc Handles {task} for documentation sites built with {gen}.
desc Configures {gen} for {task}, with navigation and builds that stay fast.
use Use when the user works on a docs site in {gen} and needs {task:v} or {task:v}.
use Use for documentation tooling work with {gen}.
step Read the site's config and structure.
step Implement {task} with {gen:v}.
step Build locally and check links.
step Deploy a preview and review.
vocab static site generator, docs site, navigation, build, deploy, broken links

# project-docs
slot doc readme=READMEs{installation, usage, badges} | contributing=contributing guides{development setup, pull request process} | adr=architecture decision records{context, decision, consequences} | design-doc=design docs and RFCs{goals, non-goals, alternatives} | changelog=changelogs{keep a changelog, unreleased, semver} | migration=migration guides{breaking changes, before and after} | tutorial=tutorials{learning path, exercises} | faq=FAQs{questions, answers}
slot project library=an open source library{users, maintainers} | service=an internal service{on-call, dependencies} | cli=a command-line tool{flags, install} | mobile=a mobile app{releases, stores}
name {doc}-{project}
name {project}-{doc}
title {doc} for {project}
desc Writes {doc} for {project}: what readers need first, examples that work, and nothing stale.
desc Drafts and improves {doc} for {project}.
use Use when the user needs {doc:v} or {doc:v} for {project}, or existing docs are out of date.
use Use for technical writing on {doc}.
step Ask who reads it and what they try to do.
step Outline with {doc:v}.
step Write, with runnable examples.
step Ask a newcomer to follow it and fix where they stumble.
vocab technical writing, docs, examples, structure, maintainers, users

# localization
slot format json=JSON i18n files{i18next, keys, namespaces} | gettext=gettext PO files{msgid, msgstr, plural forms} | xliff=XLIFF{trans-units, CAT tools} | android=Android strings.xml{string resources, plurals} | ios=iOS string catalogs{Localizable.strings, xcstrings} | arb=Flutter ARB files{ICU messages, placeholders} | rails=Rails YAML locales{I18n, locale files}
slot task translate=translating missing strings{untranslated keys, glossary, context} | pseudo=pseudo-localization{text expansion, truncation} | plurals=plural and gender rules{ICU MessageFormat, CLDR plural rules} | extract=extracting strings from code{hardcoded strings, keys}
name {format}-{task}
name {task}-{format}-l10n
title {format}: {task}
desc Handles {task} for apps localized with {format}, keeping keys, placeholders and plural forms valid.
desc Localization helper for {format}: {task}.
use Use when the user localizes an app, mentions {format:v} or {task:v}, or translations are missing or broken.
use Use for i18n and l10n work with {format}.
step Load the source and target locale files.
step Do {task} with {task:v}.
step Validate placeholders and syntax.
step Report what needs a human translator.
vocab localization, internationalization, i18n, l10n, locales, translation, placeholders

# editing
slot kind tech=technical documentation{accuracy, terminology} | academic=academic papers{argument, citations} | marketing=marketing copy{claims, tone} | legal=legal text{defined terms, precision} | microcopy=UI microcopy{buttons, error messages} | grant=grant proposals{aims, budget justification}
slot style plain=plain language{short sentences, common words} | ap=AP style{numbers, titles} | chicago=Chicago style{citations, punctuation} | google=the Google developer style guide{second person, present tense} | microsoft=the Microsoft style guide{voice, bias-free}
name edit-{kind}-{style}
name {kind}-proofreading-{style}
title Editing {kind} to {style}
desc Edits and proofreads {kind} to {style}: fixes grammar and consistency, tightens wording, and explains larger changes.
desc Copyedits {kind} following {style}.
use Use when the user asks to proofread, edit or polish {kind}, or mentions {style}.
use Use for editing {kind:v} and {kind:v}.
step Read once for meaning before changing anything.
step Fix errors, then consistency, then style per {style}.
step Mark substantive suggestions separately from corrections.
step Return a clean version and a list of changes.
vocab proofreading, copyediting, grammar, spelling, consistency, style guide, track changes

# internal-comms
slot kind minutes=meeting minutes{decisions, action items, attendees} | status=status reports{progress, risks, next steps} | leadership=leadership updates{highlights, asks} | announcement=all-hands announcements{what changes, why, when} | release=release announcements{features, availability} | newsletter=internal newsletters{team news, wins} | customer-incident=incident updates for customers{impact, workaround, next update}
slot channel slack=Slack{threads, short messages} | email=email{subject line, summary first} | confluence=Confluence{pages, templates} | notion=Notion{pages, databases} | teams=Microsoft Teams{channels, posts}
name {kind}-{channel}
name {channel}-{kind}
title {kind} on {channel}
desc Writes {kind} for {channel}: the key point first, scannable structure and the right level of detail for the readers.
desc Drafts internal communications ({kind}) to post on {channel}.
use Use when the user needs {kind:v} or {kind:v} written up, or wants to turn notes into a {kind} for {channel}.
use Use for internal comms posted on {channel}.
step Ask for the raw notes, audience and deadline.
step Lead with the most important point.
step Structure with {kind:v} and {kind:v}.
step Trim to what readers on {channel} will read.
vocab internal communication, update, stakeholders, summary, audience, tone

=media
gloss video, audio, codec, bitrate, resolution, frame rate, container, subtitles, captions, timeline, clip, render, export, encode, transcode, loudness, noise, microphone, podcast, episode, thumbnail, aspect ratio, color grading, waveform, sample rate

# video
slot task transcode=transcoding{codecs, H.264, HEVC, bitrate} | trim=trimming and cutting clips{timestamps, keyframes} | subtitles=burning in subtitles{SRT, styling, hardcoded captions} | thumbnails=thumbnail generation{frames, contact sheets} | compress=compression for the web{file size, CRF, streaming} | concat=joining clips{concatenation, transitions} | extract-audio=extracting audio{audio track, MP3, WAV} | stabilize=stabilization{shaky footage, vidstab}
slot tool ffmpeg=FFmpeg{filters, ffprobe} | handbrake=HandBrake{presets, queue} | davinci=DaVinci Resolve{timeline, render queue} | premiere=Premiere Pro{sequences, Media Encoder} | moviepy=MoviePy{Python, clips}
name {tool}-{task}
name video-{task}-{tool}
title Video {task} with {tool}
desc Does video {task} with {tool}, with settings chosen for the target platform and quality.
desc Automates {task} for video files using {tool}.
use Use when the user needs {task:v} or {task:v} for video files, or asks how to do it with {tool}.
use Use for video processing involving {task}.
step Inspect the input with ffprobe or the tool's info panel.
step Choose settings for {task}: {task:v}.
step Run on a short segment first.
step Run the full job and compare size and quality.
vocab video files, MP4, MOV, encoding, quality, playback
code bash
	ffprobe -hide_banner input.mov
	ffmpeg -i input.mov -c:v libx264 -crf 23 -preset medium -c:a aac -b:a 128k -movflags +faststart output.mp4
end

# audio
slot task transcribe=transcription{speech to text, speaker labels, timestamps} | denoise=noise reduction{background noise, hiss, hum} | loudness=loudness normalization{LUFS, true peak} | podcast-edit=podcast editing{cuts, filler words, music beds} | show-notes=show notes from recordings{chapters, summaries} | convert=audio format conversion{MP3, WAV, FLAC, sample rate}
slot tool whisper=Whisper{speech recognition, models} | audacity=Audacity{effects, macros} | sox=SoX and FFmpeg{command line, filters} | descript=Descript{transcript editing, overdub} | audition=Adobe Audition{multitrack, spectral editing}
name {tool}-{task}
name audio-{task}-{tool}
title Audio {task} with {tool}
desc Handles audio {task} with {tool}, for podcasts, interviews and voice recordings.
desc Audio helper: {task} using {tool}.
use Use when the user has recordings and needs {task:v} or {task:v}, or mentions {tool}.
use Use for podcast and audio production involving {task}.
step Check the input format, length and quality.
step Apply {task} with {tool:v}.
step Listen to the start, middle and end.
step Export in the format the user needs.
vocab audio files, recording, podcast, voice, speech, export

# captions
slot format srt=SRT{sequence numbers, timestamps} | vtt=WebVTT{cues, positioning} | ass=ASS/SSA{styles, karaoke} | ttml=TTML{XML captions, broadcast}
slot task translate=translating subtitles{languages, line length} | sync=fixing subtitle timing{offset, drift, frame rate} | convert=converting subtitle formats{format conversion, styling loss}
name {format}-subtitles-{task}
name {task}-{format}
title {format} subtitles: {task}
desc Works with {format} subtitle files: {task}, keeping timing and formatting valid.
desc Subtitle helper for {task} in {format}.
use Use when the user has {format} captions and needs {task:v} or {task:v}.
use Use for subtitle and closed caption files.
step Parse the file and check it is valid {format}.
step Apply {task}.
step Validate timing and line lengths.
step Spot-check against the video.
vocab subtitles, captions, timing, cues, languages

=education
gloss lesson, learning objective, curriculum, standards, assessment, rubric, student, teacher, classroom, differentiation, scaffolding, formative assessment, summative assessment, homework, worksheet, discussion, group work, grading, feedback, syllabus, unit plan, engagement, accommodations, exit ticket

# lesson-plan
slot subject $subject
slot level $level
name {subject}-lesson-plan-{level}
name {level}-{subject}-lessons
title {subject} lessons for {level}
desc Plans {subject} lessons for {level}: objectives, activities, timing, materials and a quick check for understanding.
desc Creates engaging {subject} lesson plans suited to {level}.
use Use when a teacher needs a lesson plan or unit for {subject} at {level}, or asks for activities on {subject:v}.
use Use for planning {subject} teaching for {level:v}.
step Ask for the topic, time available and standards to meet.
step Write objectives students can demonstrate.
step Plan activities around {subject:v} suited to {level}.
step Add differentiation and a check for understanding.
vocab lesson plan, objectives, activities, materials, timing, teaching

# assessment
slot kind quiz=quizzes{multiple choice, answer key} | rubric=rubrics{criteria, performance levels} | exam=exams{sections, mark scheme} | flashcards=flashcards{spaced repetition, prompts} | worksheet=worksheets{practice problems, answers}
slot subject $subject
name {subject}-{kind}
name {kind}-{subject}
title {kind} for {subject}
desc Creates {kind} for {subject} aligned to learning objectives, with answers and notes on common misconceptions.
desc Writes {subject} {kind} at the right difficulty.
use Use when a teacher or student needs {kind:v} or {kind:v} for {subject}.
use Use for assessment material in {subject}.
step Ask for the topics, level and length.
step Write items covering {subject:v}.
step Vary difficulty and check each answer.
step Add an answer key and marking guidance.
vocab assessment, questions, answers, difficulty, marking, misconceptions

# lms
slot lms canvas=Canvas{modules, assignments, SpeedGrader} | moodle=Moodle{courses, activities, gradebook} | google-classroom=Google Classroom{classwork, topics} | blackboard=Blackboard{content areas, grade center}
slot task setup=course setup{modules, calendar} | gradebook=gradebook exports{grades, CSV export, weighting} | quiz-import=importing quiz questions{QTI, question banks} | access=accessible course content{alt text, captions, headings}
name {lms}-{task}
name {task}-{lms}
title {lms}: {task}
desc Helps instructors with {task} in {lms}.
desc Walks through {task} for courses on {lms}.
use Use when the user teaches with {lms} and needs {task:v} or {task:v}.
use Use for learning management system work in {lms}.
step Confirm the {lms} version and permissions.
step Do {task} with {lms:v}.
step Preview as a student.
step Note settings to reuse next term.
vocab LMS, course, instructors, students, modules, grades

# tutoring
slot topic calculus=calculus{derivatives, integrals, limits} | statistics=statistics{probability, distributions, hypothesis tests} | programming=programming basics{variables, loops, functions} | organic-chem=organic chemistry{mechanisms, functional groups} | grammar=English grammar{tenses, clauses, punctuation} | mechanics=physics mechanics{Newton's laws, kinematics} | personal-finance=personal finance{budgeting, interest, saving}
slot approach socratic=Socratic questioning{guiding questions, hints} | worked=worked examples{step-by-step solutions} | practice=practice problems{graded difficulty, feedback}
name {topic}-tutor-{approach}
name {approach}-{topic}
title Tutoring {topic} with {approach}
desc Tutors learners in {topic} using {approach}, checking understanding before moving on.
desc Explains {topic} through {approach}.
use Use when a student is stuck on {topic:v} or {topic:v}, or wants to learn {topic}.
use Use for one-to-one tutoring in {topic}.
step Find out what the learner already knows.
step Teach with {approach:v}.
step Check understanding with a new problem.
step Summarize key ideas and next practice.
vocab tutoring, learner, explanation, practice, understanding, hints

=science
gloss experiment, hypothesis, sample, replicate, control, variable, measurement, uncertainty, statistics, p-value, effect size, reproducibility, protocol, dataset, figure, methods, results, peer review, citation, notebook, pipeline, normalization, quality control, metadata

# lab-analysis
slot field rnaseq=RNA-seq{differential expression, read counts, DESeq2} | proteomics=mass spectrometry proteomics{peptides, spectra, quantification} | microscopy=microscopy images{segmentation, fluorescence, cell counting} | clinical=clinical trial data{endpoints, adverse events, CDISC} | ecology=ecological field surveys{species counts, transects, biodiversity} | climate=climate data in NetCDF{gridded data, xarray, anomalies} | astronomy=astronomy FITS images{photometry, WCS, Astropy} | spectroscopy=spectroscopy data{peaks, baselines, calibration} | eeg=EEG recordings{epochs, artifacts, MNE}
slot task pipeline=an analysis pipeline{workflow, reproducibility} | stats=statistics and figures{plots, tests} | notebook=a reproducible notebook{Jupyter, environment}
name {field}-{task}
name {field}-analysis-{task}
title {field}: {task}
desc Builds {task} for {field}: from raw files to figures, with quality control and documented parameters.
desc Helps researchers analyze {field} with {task}.
use Use when the user works with {field:v} or {field:v} and needs {task:v}.
use Use for scientific data analysis of {field}.
step Inventory the raw data and metadata.
step Apply quality control specific to {field}.
step Analyze with {field:v}.
step Produce figures and record parameters and versions.
vocab research data, analysis, figures, quality control, reproducible research

# stats-test
slot test ttest=t-tests{two groups, paired samples} | anova=ANOVA{multiple groups, post hoc tests} | chisquare=chi-square tests{contingency tables, categorical data} | regression=linear and logistic regression{coefficients, residuals, odds ratios} | survival=survival analysis{Kaplan-Meier, Cox models, censoring} | mixed=mixed-effects models{random effects, repeated measures} | power=power analysis{sample size, effect size} | bayes=Bayesian models{priors, posteriors, MCMC}
slot tool r=R{lm, tidyverse} | python=Python{statsmodels, SciPy} | spss=SPSS{syntax, output viewer} | stata=Stata{do-files, regress}
name {test}-{tool}
name {tool}-{test}
title {test} in {tool}
desc Runs and interprets {test} in {tool}: checks assumptions, reports results in APA style and explains them plainly.
desc Statistics helper for {test} using {tool}.
use Use when the user needs {test:v} or {test:v}, or asks which test to use and how in {tool}.
use Use for statistical analysis with {test}.
step Clarify the research question and data structure.
step Check the assumptions of {test}.
step Run it in {tool} with {tool:v}.
step Report estimates, intervals and what they mean.
vocab statistical test, assumptions, significance, confidence interval, interpretation

# paper-writing
slot task litreview=literature reviews{search strategy, synthesis} | abstract=abstracts{background, results, conclusion} | methods=methods sections{procedures, reproducibility} | reviewers=responses to reviewers{point-by-point, revisions} | grant=grant proposals{specific aims, significance, budget} | poster=conference posters{layout, figures} | citations=citations and BibTeX{reference manager, citation style}
slot field biology=biology{organisms, assays} | cs=computer science{benchmarks, algorithms} | physics=physics{models, measurements} | social=social science{surveys, interviews} | medicine=medicine{patients, trials} | economics=economics{models, data}
name {task}-{field}
name {field}-{task}
title {task} in {field}
desc Helps researchers write {task} for {field}: structure, clarity and the conventions reviewers expect.
desc Drafts and edits {task} for {field} papers and proposals.
use Use when the user is writing {task:v} or {task:v} in {field}.
use Use for academic writing in {field}.
step Ask for the venue or funder and its guidelines.
step Outline {task} with {task:v}.
step Draft clearly, with claims tied to evidence.
step Check length limits and formatting.
vocab academic writing, manuscript, journal, reviewers, citations, clarity
`
