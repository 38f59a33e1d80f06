// skillsapi-client.mjs drives a Skills API server (Anthropic's /v1/skills)
// with the official TypeScript SDK, @anthropic-ai/sdk 1.15.0, through
// client.beta.skills (the only namespace with versions.download). It runs
// one command and prints its result as one JSON line on stdout.
//
//   SKILLSAPI_BASE_URL=http://127.0.0.1:8080 SKILLSAPI_TOKEN=… node skillsapi-client.mjs COMMAND ARGS…
//
// Run node skillsapi-client.mjs --help for the commands. Exit status: 0
// with {"ok":true,"result":…}; 1 when the server refused, with
// {"ok":false,"status","class","type","message","error_code","request_id"};
// 2 for a wrong command line or any other failure (stderr says what).
import Anthropic, { toFile } from "@anthropic-ai/sdk";
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { basename, join, relative, sep } from "node:path";

const usage = `usage: node skillsapi-client.mjs COMMAND ARGS…

Environment:
  SKILLSAPI_BASE_URL     the server's root URL (the SDK's baseURL; it appends /v1/skills)
  SKILLSAPI_TOKEN        the token, sent as Authorization: Bearer (unset or empty: no credentials at all)
  SKILLSAPI_MAX_RETRIES  the SDK's maxRetries (default: the SDK's, 2)

FILES is a folder, uploaded as "FOLDER/PATH" for every file under it (none left out),
or a .json file {"my-skill/SKILL.md": "<base64 of the bytes>", …}, uploaded as named.
Every file goes through toFile(bytes, path), so its whole path is the part's filename.

Commands (result printed as {"ok":true,"result":…}):
  create FILES [DISPLAY_NAME]      beta.skills.create                → the Skill
  version SKILL_ID FILES           beta.skills.versions.create       → the SkillVersion
  list [--limit N]                 beta.skills.list, every page      → [Skill…] (pages: how many were fetched)
  list [--limit N] SKILL_ID        beta.skills.versions.list, every page → [SkillVersion…]
  retrieve SKILL_ID                beta.skills.retrieve              → the Skill
  retrieve SKILL_ID VERSION        beta.skills.versions.retrieve     → the SkillVersion (VERSION may be "latest")
  download SKILL_ID VERSION OUT    beta.skills.versions.download     → {bytes, sha256, content_type}; the zip written to OUT
  delete SKILL_ID                  beta.skills.delete                → {id, type}
  delete SKILL_ID VERSION          beta.skills.versions.delete       → {id, type}
`;

const args = process.argv.slice(2);
if (args.length === 0 || args[0] === "--help" || args[0] === "-h") {
  process.stdout.write(usage);
  process.exit(args.length === 0 ? 2 : 0);
}

function fail(msg) {
  process.stderr.write(`skillsapi-client: ${msg}\n`);
  process.exit(2);
}

const baseURL = process.env.SKILLSAPI_BASE_URL;
if (!baseURL) fail("set SKILLSAPI_BASE_URL to the server's root URL");
const token = process.env.SKILLSAPI_TOKEN ?? "";
const opts = { baseURL };
if (token) {
  opts.apiKey = token;
} else {
  // No credentials: a null header tells the SDK that none is wanted
  // (otherwise it refuses to send the request), and none goes out.
  opts.apiKey = null;
  opts.defaultHeaders = { Authorization: null };
}
if (process.env.SKILLSAPI_MAX_RETRIES) opts.maxRetries = Number(process.env.SKILLSAPI_MAX_RETRIES);
const client = new Anthropic(opts);
const skills = client.beta.skills;

// uploads reads FILES (a folder or a .json file) as toFile parts.
async function uploads(src) {
  const named = [];
  if (statSync(src).isDirectory()) {
    const top = basename(src);
    const walk = (dir) => {
      for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.isFile()) named.push([top + "/" + relative(src, p).split(sep).join("/"), readFileSync(p)]);
      }
    };
    walk(src);
  } else {
    for (const [p, b64] of Object.entries(JSON.parse(readFileSync(src, "utf8")))) {
      named.push([p, Buffer.from(b64, "base64")]);
    }
  }
  return Promise.all(named.map(([p, bytes]) => toFile(bytes, p)));
}

// all reads every page of a list.
async function all(first) {
  const items = [];
  let pages = 0;
  for (let page = await first; ; page = await page.getNextPage()) {
    pages++;
    items.push(...page.data);
    if (!page.hasNextPage()) break;
  }
  return { data: items, pages };
}

async function run([cmd, ...rest]) {
  switch (cmd) {
    case "create": {
      if (rest.length < 1 || rest.length > 2) fail("usage: create FILES [DISPLAY_NAME]");
      const params = { files: await uploads(rest[0]) };
      if (rest[1] !== undefined) params.display_name = rest[1];
      return skills.create(params);
    }
    case "version":
      if (rest.length !== 2) fail("usage: version SKILL_ID FILES");
      return skills.versions.create(rest[0], { files: await uploads(rest[1]) });
    case "list": {
      let limit;
      if (rest[0] === "--limit") {
        limit = Number(rest[1]);
        rest = rest.slice(2);
      }
      if (rest.length > 1) fail("usage: list [--limit N] [SKILL_ID]");
      const query = limit ? { limit } : {};
      return rest.length === 0 ? all(skills.list(query)) : all(skills.versions.list(rest[0], query));
    }
    case "retrieve":
      if (rest.length === 1) return skills.retrieve(rest[0]);
      if (rest.length === 2) return skills.versions.retrieve(rest[1], { skill_id: rest[0] });
      fail("usage: retrieve SKILL_ID [VERSION]");
    case "download": {
      if (rest.length !== 3) fail("usage: download SKILL_ID VERSION OUT");
      const res = await skills.versions.download(rest[1], { skill_id: rest[0] });
      const bytes = Buffer.from(await res.arrayBuffer());
      writeFileSync(rest[2], bytes);
      return { bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex"), content_type: res.headers.get("content-type") };
    }
    case "delete":
      if (rest.length === 1) return skills.delete(rest[0]);
      if (rest.length === 2) return skills.versions.delete(rest[1], { skill_id: rest[0] });
      fail("usage: delete SKILL_ID [VERSION]");
    default:
      fail(`unknown command ${JSON.stringify(cmd)}; see --help`);
  }
}

try {
  const result = await run(args);
  process.stdout.write(JSON.stringify({ ok: true, result }) + "\n");
} catch (err) {
  if (!(err instanceof Anthropic.APIError) || err.status === undefined) {
    fail(err?.stack ?? String(err));
  }
  const e = err.error?.error ?? {};
  process.stdout.write(JSON.stringify({
    ok: false, status: err.status, class: err.constructor.name, type: e.type ?? null, message: e.message ?? null,
    error_code: e.details?.error_code ?? null, request_id: err.requestID ?? null,
  }) + "\n");
  process.exit(1);
}
