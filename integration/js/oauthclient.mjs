// oauthclient.mjs: the official MCP TypeScript SDK's OAuth client side,
// with its client-credentials provider, against a protected resource, as
// its Streamable HTTP transport does it: a request without a token, the
// 401's WWW-Authenticate resource_metadata, then auth() (Protected Resource
// Metadata, authorization server metadata, token request with the
// resource indicator), then the request again with the token.
//
//   OAUTH_CLIENT_SECRET=… node oauthclient.mjs RESOURCE_URL CLIENT_ID ISSUER [SCOPE]
//
// Prints one JSON object: the first answer's status, auth()'s result, the
// requests the SDK made (method, URL, client authentication), the granted
// scope, and the second answer's status and JSON body. Never the token or
// the secret.
import { auth, extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";

const [serverUrl, clientId, issuer, scope] = process.argv.slice(2);
const provider = new ClientCredentialsProvider({
  clientId,
  clientSecret: process.env.OAUTH_CLIENT_SECRET,
  expectedIssuer: issuer,
  scope,
});

const requests = [];
const fetchFn = (url, init = {}) => {
  const headers = new Headers(init.headers);
  const body = init.body instanceof URLSearchParams ? init.body : new URLSearchParams();
  const authn = headers.get("authorization")?.split(" ")[0] ?? (body.has("client_secret") ? "client_secret_post" : "none");
  requests.push({ method: init.method ?? "GET", url: String(url), auth: authn, resource: body.get("resource") ?? undefined });
  return fetch(url, init);
};

const first = await fetch(serverUrl, { method: "POST" });
const { resourceMetadataUrl } = extractWWWAuthenticateParams(first);
const result = await auth(provider, { serverUrl, resourceMetadataUrl, fetchFn });
const tokens = provider.tokens();
const second = await fetch(serverUrl, { method: "POST", headers: { Authorization: `Bearer ${tokens.access_token}` } });
console.log(JSON.stringify({
  firstStatus: first.status,
  resourceMetadataUrl: resourceMetadataUrl?.href,
  result,
  requests,
  tokenType: tokens.token_type,
  scope: tokens.scope,
  status: second.status,
  body: await second.json(),
}));
