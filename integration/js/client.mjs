// client.mjs drives skillstore with the official MCP TypeScript SDK client
// through every tool, resource, template and prompt, over stdio or
// Streamable HTTP. The server must serve mcptest.Fixture (see
// mcpserver/mcptest). Exits 1 with a list of failures, 0 when all pass.
//
//   node client.mjs stdio /path/to/skillstore /path/to/skills
//   node client.mjs http http://127.0.0.1:8080/mcp [TOKEN]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, a, b] = process.argv.slice(2);
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); };

let transport;
if (mode === "stdio") {
  transport = new StdioClientTransport({ command: a, args: ["serve", "--source", `project=${b}`, "--log-level", "error"], stderr: "inherit" });
} else if (mode === "http") {
  const headers = b ? { Authorization: `Bearer ${b}` } : {};
  transport = new StreamableHTTPClientTransport(new URL(a), { requestInit: { headers } });
} else {
  console.error("usage: node client.mjs stdio BINARY DIR | http URL [TOKEN]");
  process.exit(2);
}

const client = new Client({ name: "skillstore-ts-client", version: "1.0.0" });
await client.connect(transport);
const text = (res) => res.content.filter((c) => c.type === "text").map((c) => c.text).join("");

try {
  const info = client.getServerVersion();
  check(info?.name === "skillstore", `server name ${info?.name}`);
  check((client.getInstructions() ?? "").includes("list_skills"), "instructions mention list_skills");

  const { tools } = await client.listTools();
  check(tools.map((t) => t.name).sort().join(",") === "Skill,get_skill,list_skills,read_file_in_skill,search_skills", `tools ${tools.map((t) => t.name)}`);
  for (const t of tools) {
    const h = t.annotations ?? {};
    check(h.readOnlyHint === true && h.destructiveHint === false && h.idempotentHint === true && h.openWorldHint === false, `${t.name} annotations ${JSON.stringify(h)}`);
    check(t.outputSchema?.type === "object", `${t.name} outputSchema`);
  }

  // The SDK validates structuredContent against each tool's outputSchema.
  const list = await client.callTool({ name: "list_skills", arguments: {} });
  check(JSON.stringify(list.structuredContent?.skills) === '["calculator","weather"]', `list_skills ${JSON.stringify(list.structuredContent)}`);

  const found = await client.callTool({ name: "search_skills", arguments: { query: "weather forecast for Paris", limit: 5 } });
  check(JSON.stringify(found.structuredContent?.skills) === '["weather"]' && found.structuredContent?.details?.[0]?.uri === "skill://weather/SKILL.md", `search_skills ${JSON.stringify(found.structuredContent)}`);

  const byName = await client.callTool({ name: "get_skill", arguments: { skill_name: "calculator" } });
  const byURI = await client.callTool({ name: "get_skill", arguments: { uri: "skill://calculator/SKILL.md" } });
  const res = await client.readResource({ uri: "skill://calculator/SKILL.md" });
  check(text(byName).startsWith("---\nname: calculator") && text(byName).includes("# Calculator Skill"), "get_skill text");
  check(text(byName) === text(byURI) && text(byName) === res.contents[0].text, "get_skill matches resources/read byte for byte");
  check(byName.structuredContent?.mimeType === "text/markdown" && byName.structuredContent?.uri === "skill://calculator/SKILL.md", "get_skill structured");

  const file = await client.callTool({ name: "read_file_in_skill", arguments: { skill_name: "calculator", file_path: "examples/basic.py" } });
  check(text(file).includes("def add(a, b):") && file.structuredContent?.success === true && file.structuredContent?.encoding === "utf-8", "read_file_in_skill");

  const skill = await client.callTool({ name: "Skill", arguments: { skill_name: "weather" } });
  check(text(skill).startsWith("Skill: weather (Type: project)\nPath: "), `Skill ${text(skill).slice(0, 60)}`);

  const hostile = [
    ["read_file_in_skill", { skill_name: "calculator", file_path: "../weather/secret.md" }, "Path traversal detected"],
    ["read_file_in_skill", { skill_name: "calculator", file_path: "/etc/passwd" }, "Path traversal detected"],
    ["get_skill", { skill_name: "../../../etc/passwd" }, "Invalid skill name"],
    ["get_skill", { skill_name: "nonexistent" }, "Skill 'nonexistent' not found in skills folder"],
    ["get_skill", { skill_name: 42 }, "must be a string"],
    ["Skill", { skill_name: "nope" }, "Skill 'nope' not found."],
    ["search_skills", { query: "the and of" }, "has no words to search for"],
    ["search_skills", { query: "weather", limit: 0 }, "must be between 1 and 50"],
  ];
  for (const [name, args, want] of hostile) {
    const r = await client.callTool({ name, arguments: args });
    check(r.isError === true && text(r).includes(want), `${name} ${JSON.stringify(args)} → ${text(r).slice(0, 100)}`);
  }

  const { resources } = await client.listResources();
  check(resources.map((r) => r.uri).join(",") === "skill://calculator/SKILL.md,skill://weather/SKILL.md", "resources/list");
  check(resources.every((r) => r.mimeType === "text/markdown" && r.description), "resource metadata");
  const { resourceTemplates } = await client.listResourceTemplates();
  check(resourceTemplates.length === 1 && resourceTemplates[0].uriTemplate === "skill://{name}/{+path}", "resource template");
  const nested = await client.readResource({ uri: "skill://calculator/docs/deep/notes.md" });
  check(nested.contents[0].text === "# Deep notes\n", "nested file");
  const blob = await client.readResource({ uri: "skill://calculator/assets/logo.png" });
  const bytes = Buffer.from(blob.contents[0].blob ?? "", "base64");
  check(bytes[0] === 0x89 && bytes.subarray(1, 4).toString() === "PNG" && blob.contents[0].mimeType === "image/png", "binary file as blob");
  try {
    await client.readResource({ uri: "skill://calculator/../weather/secret.md" });
    check(false, "traversal through resources/read succeeded");
  } catch (e) {
    check(String(e.message).includes("Path traversal detected"), `resource traversal error: ${e.message}`);
  }

  const { prompts } = await client.listPrompts();
  check(prompts.length === 2, "prompts/list");
  const prompt = await client.getPrompt({ name: "weather" });
  check(prompt.messages[0].content.text.includes("# Weather"), "prompts/get");
} catch (e) {
  failures.push(`exception: ${e.stack ?? e}`);
} finally {
  await client.close();
}

if (failures.length) {
  console.error(`FAIL (${mode}):\n- ` + failures.join("\n- "));
  process.exit(1);
}
console.log(`ok (${mode}): every tool, resource, template and prompt`);
