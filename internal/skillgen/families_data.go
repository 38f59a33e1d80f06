package skillgen

var dataText = `
$db postgres=PostgreSQL{psql, indexes, VACUUM, WAL, EXPLAIN ANALYZE, pg_stat_statements} | mysql=MySQL{InnoDB, binlog, indexes, slow query log} | sqlite=SQLite{WAL mode, pragmas, single-file database} | mongodb=MongoDB{collections, aggregation pipeline, replica sets, documents} | redis=Redis{keys, TTL, persistence, eviction policy} | dynamodb=DynamoDB{partition keys, GSIs, capacity units, single-table design} | sqlserver=SQL Server{T-SQL, execution plans, SSMS, query store} | snowflake=Snowflake{virtual warehouses, credits, micro-partitions, clustering keys} | bigquery=BigQuery{slots, partitioned tables, bytes scanned, clustering} | clickhouse=ClickHouse{MergeTree, materialized views, ORDER BY keys}
$sqldb postgres=PostgreSQL{psql, pg_dump, roles, extensions} | mysql=MySQL{mysqldump, InnoDB, users and grants} | mariadb=MariaDB{Galera, mariadb-dump} | sqlserver=SQL Server{T-SQL, SSMS, Agent jobs} | oracle=Oracle Database{PL/SQL, schemas, RMAN} | sqlite=SQLite{single file, pragmas}
$warehouse snowflake=Snowflake{virtual warehouses, stages, COPY INTO} | bigquery=BigQuery{datasets, partitioned tables, scheduled queries} | redshift=Amazon Redshift{distribution keys, sort keys, Spectrum} | databricks=Databricks{Delta Lake, notebooks, Unity Catalog} | postgres=PostgreSQL{schemas, materialized views} | duckdb=DuckDB{in-process analytics, Parquet files}
$bi tableau=Tableau{workbooks, calculated fields, extracts, LOD expressions} | power-bi=Power BI{DAX, Power Query, semantic models} | looker=Looker{LookML, explores, views} | metabase=Metabase{questions, collections, models} | superset=Apache Superset{charts, datasets, SQL Lab} | grafana=Grafana{panels, data sources, variables} | looker-studio=Looker Studio{data sources, calculated fields, scorecards}

=data
gloss dataset, table, column, row, schema, pipeline, ETL, ELT, warehouse, data lake, batch, incremental load, backfill, partition, deduplication, null values, data types, timestamps, time zones, primary key, foreign key, join, aggregation, SQL, query, CSV, JSON, Parquet, lineage, freshness, data contract, orchestration, idempotency, late-arriving data, slowly changing dimension, upsert, sample, profile, outliers, data dictionary
code sql
	-- check for duplicates before loading
	SELECT id, COUNT(*) AS n
	FROM staging.events
	GROUP BY id
	HAVING COUNT(*) > 1
	ORDER BY n DESC
	LIMIT 20;
end
code python
	import pandas as pd

	df = pd.read_csv("input.csv", dtype=str, keep_default_na=False)
	print(df.shape)
	print(df.isna().sum().sort_values(ascending=False).head(10))
	df.to_parquet("output.parquet", index=False)
end

# etl-pipeline
slot src postgres=PostgreSQL{logical replication, CDC, read replica} | mysql=MySQL{binlog, CDC, replica} | salesforce=Salesforce{SOQL, objects, API limits} | stripe=Stripe{charges, invoices, subscriptions, API pagination} | s3-csv=CSV files in S3{object prefixes, file drops, manifests} | kafka=Kafka topics{consumers, offsets, schemas} | google-analytics=Google Analytics{GA4 export, events, sessions} | hubspot=HubSpot{contacts, deals, properties} | rest-api=a REST API{pagination, rate limits, auth tokens}
slot dst snowflake=Snowflake{stages, COPY INTO, Snowpipe} | bigquery=BigQuery{load jobs, partitioned tables} | redshift=Redshift{COPY, distribution keys} | databricks=Databricks{Delta tables, Auto Loader} | postgres=PostgreSQL{upserts, staging schema}
distinct src dst
name {src}-to-{dst}
name {src}-{dst}-pipeline
name sync-{src}-into-{dst}
title Loading {src} data into {dst}
title A {src} to {dst} pipeline
desc Builds a data pipeline that extracts from {src} and loads into {dst}, incrementally, with retries, schema changes handled and row counts reconciled.
desc Designs and writes ELT jobs that move {src} data into {dst}, covering full and incremental loads and backfills.
use Use when the user wants to get {src} data into {dst}, sync or replicate it on a schedule, or fix a broken load.
use Use when building ingestion from {src} or asking how to land {src:v} in {dst}.
step Inventory what to extract from {src}: objects, volumes, how changes can be detected.
step Choose full or incremental loading; for incremental, pick a reliable cursor such as an updated-at column or {src:v}.
step Land raw data in {dst} first ({dst:v}), then transform.
step Make every run idempotent, so a retry does not duplicate rows.
step Reconcile counts between source and destination after each run.
step Schedule it and alert on failure and on stale data.
vocab extract, load, transform, cursor, watermark, schema drift, retries, row counts, Fivetran, Airbyte, Meltano, connectors

# orchestration
slot orch airflow=Apache Airflow{DAGs, operators, XCom, scheduler} | dagster=Dagster{assets, ops, sensors, partitions} | prefect=Prefect{flows, tasks, deployments} | luigi=Luigi{tasks, targets, dependencies} | argo=Argo Workflows{workflow templates, steps, DAG templates} | mage=Mage{blocks, pipelines, triggers}
slot task write=writing a new pipeline{dependencies, schedule, retries} | debug=debugging a failing task{task logs, retries, upstream failures} | backfill=backfilling history{date ranges, catchup, partitions} | migrate=migrating cron jobs{crontab, shell scripts, scheduling}
name {orch}-{task}
name {orch}-dag-{task}
title {orch}: {task}
desc Helps with {task} in {orch}: dependencies, schedules, retries and alerting, following the project's existing conventions.
desc Guides {task} for data workflows orchestrated with {orch}.
use Use when the user works on {orch:v} or {orch:v}, mentions {task:v}, or a scheduled data job needs attention.
use Use for {task} with {orch}.
step Read the existing {orch} project layout and conventions.
step Model the work as {orch:v} with explicit dependencies.
step Handle {task:v} and {task:v}.
step Test locally or in a dev deployment before scheduling in production.
vocab schedule, dependencies, retries, SLA, idempotent tasks, scheduler, workers, sensors

# dbt
slot wh $warehouse
slot task models=writing models{staging models, marts, refs, sources} | tests=adding tests{schema tests, unique, not_null, relationships} | incremental=incremental models{is_incremental, unique_key, merge strategy} | docs=docs and lineage{descriptions, exposures, dbt docs} | snapshots=snapshots{SCD type 2, check strategy, timestamp strategy}
name dbt-{wh}-{task}
name {wh}-dbt-{task}
title dbt on {wh}: {task}
desc Helps with dbt on {wh}: {task}, following the project's layering from sources to marts.
desc Writes and reviews dbt code for {wh}, focused on {task}.
use Use when the user works in a dbt project on {wh} and asks about {task:v} or {task:v}.
use Use when modelling warehouse data with dbt and {wh}.
step Read dbt_project.yml and the folder layout.
step Find or declare the sources involved.
step Do the {task}: {task:v} and {task:v}.
step Run dbt build for the changed models and their children.
vocab dbt, models, ref, source, Jinja, macros, materializations, dbt build, lineage graph
code sql
	{{ config(materialized='incremental', unique_key='order_id') }}
	select * from {{ ref('stg_orders') }}
	{% if is_incremental() %}
	where updated_at > (select max(updated_at) from {{ this }})
	{% endif %}
end

# sql-tuning
slot db $db
slot task query=slow query tuning{query plans, rewrites, sargable predicates} | indexes=index design{composite indexes, covering indexes, unused indexes} | plans=reading execution plans{seq scans, nested loops, estimates vs actuals}
name {db}-{task}
name {db}-slow-{task}
name tune-{db}-{task}
title {db}: {task}
desc Speeds up {db} workloads through {task}: finds what is slow, explains why, and proposes changes with measured gains.
desc Analyzes {db} queries and schemas for {task}, with before-and-after timings.
use Use when a {db} query is slow, the user pastes an execution plan, or asks about {task:v} in {db}.
use Use for database performance work on {db} involving {db:v}.
step Get the exact query, its parameters and how often it runs.
step Capture the plan with {db:v} and time it.
step Find the expensive step and its cause.
step Propose {task:v} or a rewrite, and measure again.
vocab query plan, index, table scan, cardinality, statistics, latency, throughput, locking

# db-migrations
slot db $sqldb
slot tool flyway=Flyway{versioned migrations, repeatable migrations} | liquibase=Liquibase{changelogs, changesets} | alembic=Alembic{revisions, autogenerate, SQLAlchemy} | prisma=Prisma Migrate{schema.prisma, migrate dev} | django=Django migrations{makemigrations, RunPython} | rails=Rails migrations{ActiveRecord, schema.rb} | goose=goose{SQL migrations, Go migrations} | atlas=Atlas{declarative schema, migration linting}
name {tool}-{db}-migrations
name {db}-schema-migration-{tool}
title Schema migrations for {db} with {tool}
desc Writes safe schema migrations for {db} using {tool}: backwards-compatible steps, backfills in batches, and a tested rollback.
desc Plans zero-downtime {db} schema changes managed with {tool}.
use Use when the user needs to add, rename or drop columns or tables in {db}, or asks how to write a {tool} migration.
use Use when a {tool} migration failed or locked a {db} table.
step Read the current schema and the migration history.
step Split risky changes into expand and contract steps.
step Write the {tool} migration with {tool:v}.
step Backfill data in batches outside the migration when tables are large.
step Test up and down on a copy of production-sized data.
vocab schema change, ALTER TABLE, locks, backfill, rollback, expand and contract, zero downtime

# db-ops
slot db postgres=PostgreSQL{pg_dump, streaming replication, PgBouncer, VACUUM} | mysql=MySQL{mysqldump, replicas, ProxySQL} | mongodb=MongoDB{mongodump, replica sets, oplog} | redis=Redis{RDB snapshots, AOF, Sentinel} | sqlserver=SQL Server{backups, Always On, logins} | mariadb=MariaDB{Galera, mariabackup} | cassandra=Cassandra{nodetool, repairs, compaction} | elasticsearch=Elasticsearch{snapshots, shards, index lifecycle}
slot op backup=backup and restore{backups, point-in-time recovery, restore test} | replication=replication setup{primary, replicas, replication lag} | upgrade=major version upgrade{upgrade path, compatibility, downtime} | pooling=connection pooling{max connections, pool size, idle connections} | maintenance=routine maintenance{bloat, statistics, disk usage} | access=user and permission audit{roles, grants, least privilege}
name {db}-{op}
name {db}-{op}-ops
title {db}: {op}
desc Runs {op} for {db} with a written plan, checks at each step, and a way back.
desc Operational guide to {op} on {db}, for DBAs and developers on call.
use Use when the user needs {op} on {db}, or mentions {op:v} and {op:v}.
use Use for {db} database administration tasks around {op}.
step Check the {db} version, topology and current load.
step Write the plan for {op}, including how to verify success.
step Rehearse on a copy when possible.
step Execute, monitor {op:v}, and record timings.
vocab DBA, production database, maintenance window, monitoring, disk space, failover

# data-quality
slot tool great-expectations=Great Expectations{expectation suites, checkpoints, data docs} | soda=Soda{SodaCL checks, scans} | dbt-tests=dbt tests{schema tests, singular tests} | pandera=pandera{DataFrame schemas, checks} | deequ=Deequ{constraints, metrics repository, Spark}
slot target warehouse=warehouse tables{freshness, row counts, uniqueness} | files=incoming CSV files{headers, delimiters, encodings} | events=event streams{event schemas, missing fields, volumes} | features=ML feature tables{distributions, nulls, leakage}
name {tool}-{target}-checks
name validate-{target}-{tool}
title Data quality checks on {target} with {tool}
desc Adds data quality checks to {target} using {tool}: what to test, thresholds, and where failures go.
desc Validates {target} with {tool} so bad data is caught before it reaches reports or models.
use Use when the user wants to test data, catch bad records, or mentions {tool:v} or {target:v}.
use Use when reports broke because of bad data in {target}.
step List the assumptions downstream users make about {target}.
step Turn each assumption into a {tool} check.
step Decide which failures block and which only warn.
step Wire the checks into the pipeline and route alerts.
vocab data quality, validation, assertions, thresholds, anomalies, null rate, freshness, data tests

# streaming
slot platform kafka=Apache Kafka{topics, partitions, consumer groups, offsets} | kinesis=Amazon Kinesis{shards, enhanced fan-out, checkpoints} | pubsub=Google Pub/Sub{subscriptions, ack deadlines, ordering keys} | pulsar=Apache Pulsar{tenants, namespaces, subscriptions} | rabbitmq=RabbitMQ{exchanges, queues, bindings, acknowledgements} | nats=NATS{subjects, JetStream, streams} | redpanda=Redpanda{topics, partitions, rpk}
slot task design=topic and schema design{partitioning, keys, retention} | lag=consumer lag{lag, rebalances, throughput} | schemas=schema evolution{schema registry, Avro, Protobuf, compatibility} | delivery=delivery guarantees{exactly once, idempotent producers, duplicates}
name {platform}-{task}
name {platform}-streaming-{task}
title {platform}: {task}
desc Helps with {task} on {platform}: trade-offs, configuration and how to verify behaviour under load.
desc Designs and troubleshoots event streaming on {platform}, focused on {task}.
use Use when the user works with {platform:v} or {platform:v}, or mentions {task:v} in a streaming system.
use Use for event-driven architecture questions about {task} on {platform}.
step Describe producers, consumers and message volumes.
step Work through {task}: {task:v} and {task:v}.
step Configure {platform:v} accordingly.
step Test under realistic load and failure.
vocab events, producers, consumers, messages, throughput, ordering, retention, backpressure

# convert-data
slot from csv=CSV{delimiters, quoting, headers} | json=JSON{nested objects, arrays} | parquet=Parquet{columnar, row groups, compression} | avro=Avro{schemas, schema evolution} | xml=XML{elements, attributes, namespaces, XPath} | excel=Excel{sheets, xlsx, merged cells} | ndjson=NDJSON{JSON lines, streaming} | yaml=YAML{indentation, anchors}
slot to csv=CSV{delimiters, quoting, headers} | json=JSON{nested objects, arrays} | parquet=Parquet{columnar, compression} | avro=Avro{schemas} | xml=XML{elements, attributes} | excel=Excel{sheets, xlsx} | ndjson=NDJSON{JSON lines} | yaml=YAML{indentation}
distinct from to
name {from}-to-{to}
name convert-{from}-{to}
name {from}-{to}-converter
title Converting {from} to {to}
desc Converts {from} data to {to}, preserving types, encodings and structure, and reports anything that could not be mapped.
desc Transforms {from} files into {to} with a schema that is explicit rather than guessed.
use Use when the user has {from} files and needs {to}, or a {to} export of {from} data looks wrong.
use Use for one-off or batch conversion from {from} to {to}.
step Inspect a sample of the {from} input: encoding, {from:v}, size.
step Decide how {from} structures map onto {to}; write the mapping down.
step Convert with an explicit schema and streaming for large inputs.
step Validate the {to} output: row counts, types, a few records by hand.
vocab encoding, UTF-8, schema, types, nested data, flattening, streaming, batch conversion

# data-cleaning
slot data addresses=postal addresses{street, postcode, geocoding, country formats} | phones=phone numbers{E.164, country codes, extensions} | names=people and company names with duplicates{fuzzy matching, record linkage, dedupe} | dates=dates and time zones{date formats, UTC, daylight saving} | currency=currency amounts{decimal separators, exchange rates, rounding} | products=product catalog data{SKUs, categories, units} | surveys=survey responses{free text, Likert scales, skipped questions} | categories=free-text categories{normalization, mapping tables, typos}
slot tool pandas=pandas{DataFrames, apply, merge} | polars=Polars{lazy frames, expressions} | openrefine=OpenRefine{clustering, facets} | sql=SQL{CTEs, window functions} | power-query=Excel Power Query{steps, M language} | r=R tidyverse{dplyr, tidyr, stringr}
name clean-{data}-{tool}
name {tool}-{data}-cleanup
title Cleaning {data} with {tool}
desc Cleans and standardizes messy {data} with {tool}: normalizes formats, fixes typos, merges duplicates and flags what cannot be fixed.
desc Tidies {data} in {tool} so it can be joined, counted and trusted.
use Use when {data} are inconsistent, duplicated or badly formatted and the user works in {tool}.
use Use when someone asks to standardize, dedupe or fix {data:v} or {data:v}.
step Profile the data: formats seen, counts, obvious errors.
step Define the target format for {data}.
step Apply rules in {tool} with {tool:v}, keeping the original column.
step Review a sample of changes and count what was left unfixed.
vocab normalization, standardization, duplicates, typos, validation rules, profiling, data cleaning

# web-scraping
slot target prices=product prices{product pages, pagination, price history} | jobs=job listings{job boards, salaries, locations} | real-estate=real estate listings{listings, addresses, photos} | news=news articles{headlines, authors, publication dates} | social=public social media posts{hashtags, engagement, profiles} | gov-data=public government data{open data portals, tables, PDFs} | sports=sports statistics{box scores, fixtures, player stats}
slot tool beautifulsoup=Beautiful Soup{requests, HTML parsing, CSS selectors} | playwright=Playwright{headless browser, waiting for selectors} | scrapy=Scrapy{spiders, item pipelines, throttling} | puppeteer=Puppeteer{headless Chrome, page.evaluate}
name scrape-{target}-{tool}
name {tool}-{target}-scraper
title Scraping {target} with {tool}
desc Writes a polite scraper for {target} with {tool}: respects robots.txt and rate limits, handles pagination, and saves clean structured data.
desc Collects {target} from websites using {tool}, with retries, deduplication and a CSV or JSON output.
use Use when the user wants to extract {target} from a website, crawl listings, or build a dataset of {target:v}.
use Use for web scraping of {target} with {tool}.
step Check the site's terms, robots.txt and whether an API exists.
step Inspect pages to find stable selectors for {target:v}.
step Write the {tool} scraper with throttling and retries.
step Store results with the source URL and fetch time, and dedupe.
vocab crawler, selectors, HTML, pagination, rate limiting, robots.txt, user agent, structured data

=analytics
gloss metric, KPI, dashboard, chart, cohort, funnel, conversion, retention, churn, segment, dimension, measure, filter, trend, baseline, variance, confidence interval, significance, sample size, seasonality, outlier, median, percentile, growth rate, year over year, month over month, stakeholder, insight, report, visualization, data source, refresh schedule
code python
	import plotly.express as px

	fig = px.line(df, x="week", y="active_users", color="plan", markers=True)
	fig.update_layout(title="Weekly active users by plan", yaxis_title="users")
	fig.write_html("wau.html")
end

# dashboard
slot bi $bi
slot subject sales=sales pipeline{pipeline stages, win rate, quota attainment} | marketing=marketing funnel{leads, MQLs, cost per acquisition} | product=product usage{active users, feature adoption, retention} | finance=finance KPIs{revenue, burn rate, gross margin} | support=support tickets{ticket volume, first response time, CSAT} | infra=infrastructure health{uptime, error rates, latency} | hr=headcount and hiring{headcount, attrition, time to hire}
name {bi}-{subject}-dashboard
name {subject}-dashboard-{bi}
name {bi}-{subject}-report
title A {subject} dashboard in {bi}
desc Builds a {subject} dashboard in {bi}: the right metrics, clear charts, filters people use, and definitions everyone agrees on.
desc Designs and builds {bi} reports on {subject} for the people who make decisions from them.
use Use when the user wants a dashboard or report about {subject:v} or {subject:v}, or works in {bi}.
use Use when an existing {bi} dashboard on {subject} is confusing, slow or wrong.
step Ask who will use the dashboard and what decision it supports.
step Define each metric precisely, including filters and time grain.
step Build the data model in {bi} with {bi:v}.
step Lay out charts from summary to detail; limit each page to one question.
step Check numbers against a trusted source before sharing.
vocab dashboard layout, KPIs, filters, drill-down, refresh, data model, calculated fields

# ab-test
slot metric conversion=conversion rate{binary outcome, proportions} | revenue=revenue per user{skewed distributions, outliers} | retention=retention{day 7 retention, survival} | ctr=click-through rate{impressions, clicks}
slot method frequentist=frequentist tests{p-values, t-test, z-test} | bayesian=Bayesian analysis{posterior, credible intervals, probability to beat} | sequential=sequential testing{peeking, alpha spending} | cuped=CUPED variance reduction{pre-experiment covariates, variance}
name ab-test-{metric}-{method}
name {metric}-experiment-{method}
title A/B test analysis of {metric} ({method})
desc Analyzes A/B test results on {metric} with {method}: checks the setup, computes the effect with uncertainty, and says what to decide.
desc Designs and reads experiments measured by {metric}, using {method}.
use Use when the user ran an experiment or split test on {metric}, asks if a result is significant, or wants to size a test.
use Use when planning or interpreting an A/B test with {method:v}.
step Check the setup: randomization unit, sample ratio mismatch, exposure dates.
step Compute the effect on {metric} with {method:v}.
step Report the effect size with its interval, not just significance.
step Recommend ship, iterate or stop, with caveats.
vocab experiment, variant, control, treatment, effect size, statistical power, sample ratio mismatch, guardrail metrics

# product-analytics
slot tool amplitude=Amplitude{charts, cohorts, event taxonomy} | mixpanel=Mixpanel{reports, insights, flows} | posthog=PostHog{insights, feature flags, session recordings} | ga4=Google Analytics 4{events, explorations, conversions} | heap=Heap{autocapture, defined events} | segment=Segment{tracking plan, sources, destinations}
slot task tracking=an event tracking plan{event names, properties, naming conventions} | funnel=funnel analysis{steps, drop-off, conversion windows} | retention=cohort retention{cohorts, retention curves} | attribution=attribution{UTM parameters, channels, first touch, last touch}
name {tool}-{task}
name {tool}-analytics-{task}
title {task} in {tool}
desc Sets up {task} in {tool} so product questions can be answered without custom SQL.
desc Helps product teams with {task} using {tool}.
use Use when the user works in {tool}, asks about {task:v}, or wants to understand how users move through the product.
use Use for product analytics questions about {task}.
step Write down the questions the team wants answered.
step Design or check the events and properties needed.
step Build the {task} in {tool} with {tool:v}.
step Sanity-check numbers against the backend or another source.
vocab events, properties, users, sessions, funnels, cohorts, dashboards, product analytics

# forecasting
slot subject sales=sales{bookings, revenue, seasonality} | demand=inventory demand{SKUs, stockouts, lead times} | traffic=website traffic{sessions, campaigns, holidays} | churn=customer churn{churn rate, renewals} | energy=energy load{hourly load, weather} | calls=call center volume{staffing, intervals, Erlang}
slot method prophet=Prophet{trend, seasonality, holidays} | arima=ARIMA{stationarity, differencing, ACF} | ets=exponential smoothing{Holt-Winters, smoothing parameters} | gbm=gradient boosting{lag features, LightGBM, XGBoost}
name forecast-{subject}-{method}
name {subject}-forecasting-{method}
title Forecasting {subject} with {method}
desc Builds {subject} forecasts with {method}, validated by backtesting, with prediction intervals and a plain-language summary.
desc Predicts future {subject} using {method} and explains what drives the forecast.
use Use when the user wants to predict or project {subject}, plan capacity, or asks about {method:v}.
use Use for time series forecasting of {subject:v}.
step Plot the history and note trend, seasonality and breaks.
step Split by time for backtesting.
step Fit {method} with {method:v}.
step Compare against a naive baseline and report errors.
step Present the forecast with intervals and assumptions.
vocab time series, forecast horizon, backtesting, MAPE, prediction intervals, baseline, seasonality

# charts
slot chart bar=bar charts{categories, sorted bars, stacked bars} | line=line charts{time series, multiple series} | scatter=scatter plots{correlation, trend lines} | heatmap=heatmaps{color scales, matrices} | sankey=Sankey diagrams{flows, nodes, links} | map=maps{choropleth, geographic data, GeoJSON} | gantt=Gantt charts{tasks, timelines, dependencies} | waterfall=waterfall charts{increments, decrements, totals}
slot lib matplotlib=matplotlib{pyplot, figure, axes} | plotly=Plotly{interactive charts, hover} | d3=D3.js{SVG, scales, selections} | vega-lite=Vega-Lite{JSON spec, encodings} | ggplot2=ggplot2{aes, geoms, facets} | echarts=Apache ECharts{options, series} | excel=Excel charts{chart wizard, series formatting}
name {chart}-{lib}
name {lib}-{chart}-chart
title {chart} with {lib}
desc Makes clear, accurate {chart} with {lib}: good defaults for labels, colors and scales, and code that can be rerun on new data.
desc Creates publication-quality {chart} in {lib}, following data visualization best practices.
use Use when the user wants to plot, chart or visualize data as {chart}, or asks for help with {lib:v}.
use Use when a {lib} chart looks wrong or misleading.
step Ask what comparison the chart must make clear.
step Shape the data for {chart:v}.
step Draw it with {lib}, setting {lib:v} explicitly.
step Label axes with units, title with the takeaway, and check color contrast.
vocab axis labels, legend, color palette, annotations, export PNG, SVG, accessibility

# spreadsheet
slot app excel=Excel{xlsx, Power Query, VBA} | google-sheets=Google Sheets{Apps Script, QUERY function, sharing} | libreoffice=LibreOffice Calc{ods, macros}
slot task formulas=formulas and lookups{VLOOKUP, XLOOKUP, INDEX MATCH, SUMIFS} | pivots=pivot tables{pivot tables, grouping, calculated fields} | macros=macros and scripting{VBA, Apps Script, automation} | formatting=conditional formatting{rules, color scales, highlights} | validation=data validation and dropdowns{dropdown lists, input rules} | cleanup=cleanup and dedupe{remove duplicates, TRIM, split columns}
name {app}-{task}
name {task}-in-{app}
title {task} in {app}
desc Helps with {task} in {app}: writes and explains the exact formulas or scripts, and fixes errors like #N/A and #REF!.
desc Spreadsheet helper for {app}: {task} on real workbooks.
use Use when the user is working in a spreadsheet in {app} and asks about {task:v} or {task:v}.
use Use when a {app} formula returns an error or the wrong number.
step Look at the sheet's structure: headers, ranges, data types.
step Write the {task:v} and explain each argument.
step Test on a few rows where the answer is known.
step Fill down or apply across the range, and check totals.
vocab cells, ranges, named ranges, formulas, sheets, workbook, errors
`
