// accessclient.mjs: callers of a skillstore behind OAuth, as the official
// MCP TypeScript SDK makes them: each a Client over a
// StreamableHTTPClientTransport whose authProvider is the SDK's
// ClientCredentialsProvider. A caller starts with no token: the transport
// gets the server's 401, follows its WWW-Authenticate resource_metadata to
// the Protected Resource Metadata, reads the authorization server's
// metadata, asks its token endpoint for a token for the resource, and
// sends the request again. The Go test (integration/access_test.go) drives
// it over stdin and stdout, so that it can change things between calls.
//
//   ACCESS_SECRETS='{"finance-client":"…",…}' node accessclient.mjs MCP_URL ISSUER
//
// Commands, one JSON object a line on stdin, each answered by one JSON
// line on stdout with the same id, in order:
//   {"id":1,"op":"connect","client":"finance-client"}
//       → {"id":1,"requests":[{method,url,status,auth,resource}…],
//          "sessionId":"…","protocolVersion":"…"}
//       once the session's GET stream is open (its answer's headers are in:
//       from then on the server delivers the session's notifications).
//   {"id":2,"op":"call","client":"…","method":"tools/list","params":{…}}
//       → {"id":2,"result":{…}} or {"id":2,"error":{"code":…,"message":"…","data":…}}
//       through the Client's own method for it (listTools, callTool,
//       readResource, …), which validates the result against the SDK's
//       schema (structuredContent against the tool's outputSchema).
//   {"id":3,"op":"wait","client":"…","count":4,"timeoutMs":20000}
//       → {"id":3,"notifications":[…],"timedOut":false}: every notification
//       the caller received since it connected, once there are count of
//       them or the time is up.
// requests lists every HTTP request the caller made (method, URL, status,
// how it authenticated: "Bearer", "Basic" or "none", and the resource
// indicator of a token request). Nothing printed holds a token or a
// secret. The process ends when its stdin closes.
import readline from "node:readline";

import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";

const [serverUrl, issuer] = process.argv.slice(2);
const secrets = JSON.parse(process.env.ACCESS_SECRETS ?? "{}");
const callers = new Map(); // client id → { client, transport, requests, notifications, waiters }

// connect makes the caller clientId and connects it.
async function connect(clientId) {
  const c = { requests: [], notifications: [], waiters: [] };
  let streamOpen;
  const opened = new Promise((resolve) => (streamOpen = resolve));
  const recordingFetch = async (url, init = {}) => {
    const headers = new Headers(init.headers);
    const body = init.body instanceof URLSearchParams ? init.body : undefined;
    const method = init.method ?? "GET";
    const entry = {
      method,
      url: String(url),
      auth: headers.get("authorization")?.split(" ")[0] ?? (body?.has("client_secret") ? "client_secret_post" : "none"),
      resource: body?.get("resource") ?? undefined,
    };
    c.requests.push(entry);
    const response = await fetch(url, init);
    entry.status = response.status;
    if (method === "GET" && String(url) === serverUrl && response.ok) streamOpen();
    return response;
  };
  const authProvider = new ClientCredentialsProvider({ clientId, clientSecret: secrets[clientId], expectedIssuer: issuer });
  c.transport = new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider, fetch: recordingFetch });
  c.client = new Client({ name: `accessclient-${clientId}`, version: "1.0.0" });
  c.client.fallbackNotificationHandler = async (n) => {
    c.notifications.push(n);
    c.waiters = c.waiters.filter((w) => !w());
  };
  callers.set(clientId, c);
  await c.client.connect(c.transport);
  await Promise.race([opened, new Promise((_, reject) => setTimeout(() => reject(new Error("the GET stream did not open within 20 s")), 20000))]);
  return { requests: c.requests, sessionId: c.transport.sessionId, protocolVersion: c.transport.protocolVersion };
}

// call sends one request through the Client's method for it.
async function call(c, method, params) {
  const client = c.client;
  switch (method) {
    case "tools/list": return client.listTools(params);
    case "tools/call": return client.callTool(params);
    case "resources/list": return client.listResources(params);
    case "resources/templates/list": return client.listResourceTemplates(params);
    case "resources/read": return client.readResource(params);
    case "resources/subscribe": return client.subscribeResource(params);
    case "prompts/list": return client.listPrompts(params);
    case "prompts/get": return client.getPrompt(params);
    case "completion/complete": return client.complete(params);
    default: throw new Error(`accessclient: no Client method for ${method}`);
  }
}

// wait resolves once c has count notifications, or after timeoutMs.
function wait(c, count, timeoutMs) {
  return new Promise((resolve) => {
    const done = (timedOut) => resolve({ notifications: c.notifications, timedOut });
    if (c.notifications.length >= count) return done(false);
    const timer = setTimeout(() => done(true), timeoutMs);
    c.waiters.push(() => {
      if (c.notifications.length < count) return false;
      clearTimeout(timer);
      done(false);
      return true;
    });
  });
}

async function run(cmd) {
  const c = callers.get(cmd.client);
  switch (cmd.op) {
    case "connect": return connect(cmd.client);
    case "call":
      try {
        return { result: await call(c, cmd.method, cmd.params ?? {}) };
      } catch (err) {
        if (err instanceof McpError) return { error: { code: err.code, message: err.message, data: err.data } };
        throw err;
      }
    case "wait": return wait(c, cmd.count, cmd.timeoutMs ?? 20000);
    default: throw new Error(`accessclient: unknown op ${cmd.op}`);
  }
}

const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const cmd = JSON.parse(line);
  let reply;
  try {
    reply = { id: cmd.id, ...(await run(cmd)) };
  } catch (err) {
    reply = { id: cmd.id, fatal: String(err?.stack ?? err) };
  }
  process.stdout.write(`${JSON.stringify(reply)}\n`);
}
for (const c of callers.values()) await c.client.close().catch(() => {});
process.exit(0);
