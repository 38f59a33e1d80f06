// authserver.mjs — a real OAuth 2.1 authorization server for skillstore's
// tests: oidc-provider (https://github.com/panva/node-oidc-provider) on
// 127.0.0.1, issuing JWT access tokens (RFC 9068, typ at+jwt) with the
// client_credentials grant and resource indicators (RFC 8707), and a
// `groups` claim taken from each client's registration.
//
//   AUTHSERVER_CLIENTS='[{"client_id":"finance-client","client_secret":"…","groups":["finance"]}]' \
//     node authserver.mjs [--port N] [--keys FILE] [--alg RS256] \
//       [--resource URI]… [--scope SCOPE]… [--ttl SECONDS] [--path /PREFIX] \
//       [--watch-stdin]
//
// Clients (AUTHSERVER_CLIENTS, a JSON array): client_id and client_secret
// (required), groups (the `groups` claim of their tokens), scope (the
// scopes they may ask for, space-separated; none when absent),
// access_token_ttl (seconds, overriding --ttl), token_endpoint_auth_method
// (default client_secret_basic; client_secret_post also works).
//
// Resources: a token request names one resource indicator, which becomes
// the token's aud: one of the --resource values or, without any, any
// absolute http(s) URI. A request that names none gets an opaque token
// (oidc-provider's default), not a JWT. --scope lists the scopes the
// resources grant: a token carries those of the requested scopes that its
// client may ask for.
//
// Keys: signed with --alg (RS256, PS256, ES256, ES384, ES512 or EdDSA).
// The private keys live in --keys (a JWK Set, created when missing, kept
// across restarts so a restarted server publishes the same keys; a set
// read from it keeps its own algorithm, whatever --alg says).
//
// --path mounts the provider under a prefix: the issuer is then
// http://127.0.0.1:PORT/PREFIX and its metadata is where oidc-provider
// (like Keycloak's realms) serves it, PREFIX/.well-known/…, not at the
// RFC 8414 path-inserted /.well-known/oauth-authorization-server/PREFIX.
//
// When it listens it prints one JSON line on stdout:
//   {"issuer":"http://127.0.0.1:PORT[/PREFIX]","kids":["signing kid", …]}
//
// Admin endpoints, under the issuer (POST; with AUTHSERVER_ADMIN_TOKEN set
// they need "Authorization: Bearer" with it), each answering
// {"kids": […], "jwks_fetches": N}, the signing key first, and how many
// times the JWKS was fetched since the process started:
//   /admin/rotate  a new key signs from now on; the previous signer stays
//                  published (verification of its tokens goes on), and any
//                  key retired before it is dropped.
//   /admin/retire  drops every key but the signer.
//   /admin/keys    changes nothing.
// oidc-provider's key set is fixed when a Provider is built, so a key
// change builds a new Provider with the new set and swaps it in behind the
// same listener (tokens are JWTs: nothing in the old one's memory is lost
// that a client needs).
//
// The process ends on SIGTERM or SIGINT, and with --watch-stdin also when
// its stdin closes (the test that started it died).

import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import { parseArgs } from "node:util";

import Provider, { errors } from "oidc-provider";

const { values: args } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    keys: { type: "string" },
    alg: { type: "string", default: "RS256" },
    resource: { type: "string", multiple: true, default: [] },
    scope: { type: "string", multiple: true, default: [] },
    ttl: { type: "string", default: "300" },
    path: { type: "string", default: "" },
    "watch-stdin": { type: "boolean", default: false },
  },
});

const fail = (msg) => {
  process.stderr.write(`authserver: ${msg}\n`);
  process.exit(2);
};

const clients = JSON.parse(process.env.AUTHSERVER_CLIENTS ?? "[]");
if (!Array.isArray(clients) || clients.length === 0) fail("AUTHSERVER_CLIENTS must be a JSON array of clients");
const adminToken = process.env.AUTHSERVER_ADMIN_TOKEN ?? "";
const ttl = Number(args.ttl);
if (!Number.isInteger(ttl) || ttl < 1) fail("--ttl must be a whole number of seconds");

// newKey makes a private signing JWK for alg.
function newKey(alg) {
  const kinds = {
    RS256: ["rsa", { modulusLength: 2048 }],
    PS256: ["rsa", { modulusLength: 2048 }],
    ES256: ["ec", { namedCurve: "P-256" }],
    ES384: ["ec", { namedCurve: "P-384" }],
    ES512: ["ec", { namedCurve: "P-521" }],
    EdDSA: ["ed25519", {}],
  };
  if (!kinds[alg]) fail(`unsupported --alg ${alg}`);
  const { privateKey } = crypto.generateKeyPairSync(...kinds[alg]);
  const kid = crypto.randomBytes(9).toString("base64url");
  return { ...privateKey.export({ format: "jwk" }), kid, alg, use: "sig" };
}

// keys holds the private keys, the signer first.
let keys;
if (args.keys && fs.existsSync(args.keys)) {
  keys = JSON.parse(fs.readFileSync(args.keys, "utf8")).keys;
} else {
  keys = [newKey(args.alg)];
  saveKeys();
}

function saveKeys() {
  if (!args.keys) return;
  const tmp = `${args.keys}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify({ keys }), { mode: 0o600 });
  fs.renameSync(tmp, args.keys);
}

const resources = new Set(args.resource);
const scopes = args.scope.join(" ");

// resourceServer says what a token for resource looks like: a JWT signed
// with the current signer, for that audience.
function resourceServer(resource) {
  let u;
  try {
    u = new URL(resource);
  } catch {
    return undefined;
  }
  if (resources.size ? !resources.has(resource) : !/^https?:$/.test(u.protocol)) return undefined;
  return {
    audience: resource,
    scope: scopes,
    accessTokenTTL: ttl,
    accessTokenFormat: "jwt",
    jwt: { sign: { alg: keys[0].alg } },
  };
}

let issuer;
let handler;

// build makes a Provider holding the current keys.
function build() {
  const alg = keys[0].alg;
  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: "client_secret_basic",
      ...c,
      // oidc-provider lets a client without registered scopes ask for
      // any; "openid" (meaningless for client_credentials) closes that.
      scope: c.scope || "openid",
    })),
    jwks: { keys },
    scopes: ["openid", ...args.scope],
    extraClientMetadata: { properties: ["groups", "access_token_ttl"] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf,
        getResourceServerInfo: (_ctx, resource) => {
          const info = resourceServer(resource);
          if (!info) throw new errors.InvalidTarget();
          return info;
        },
      },
    },
    enabledJWA: { idTokenSigningAlgValues: [alg] },
    clientDefaults: { id_token_signed_response_alg: alg },
    extraTokenClaims: async (ctx, token) => {
      const client = ctx.oidc.client ?? (await ctx.oidc.provider.Client.find(token.clientId));
      const groups = client?.metadata().groups;
      return groups ? { groups } : undefined;
    },
    ttl: {
      ClientCredentials: (_ctx, token, client) =>
        client.metadata().access_token_ttl ?? token.resourceServer?.accessTokenTTL ?? ttl,
    },
  });
  provider.on("server_error", (_ctx, err) => process.stderr.write(`authserver: ${err.stack}\n`));
  handler = provider.callback();
}

// admin answers the key-management endpoints.
function admin(req, res, path) {
  const reply = (status, body) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  if (adminToken && req.headers.authorization !== `Bearer ${adminToken}`) return reply(401, { error: "unauthorized" });
  if (req.method !== "POST") return reply(405, { error: "POST only" });
  switch (path) {
    case "/admin/rotate":
      keys = [newKey(keys[0].alg), keys[0]];
      break;
    case "/admin/retire":
      keys = [keys[0]];
      break;
    case "/admin/keys":
      return reply(200, { kids: keys.map((k) => k.kid), jwks_fetches: jwksFetches });
    default:
      return reply(404, { error: "not found" });
  }
  saveKeys();
  build();
  return reply(200, { kids: keys.map((k) => k.kid), jwks_fetches: jwksFetches });
}

const prefix = args.path.replace(/\/+$/, "");
if (prefix && !/^\/[A-Za-z0-9._~\/-]+$/.test(prefix)) fail("--path must be a URL path");

// jwksFetches counts the GETs of the JWKS (oidc-provider's /jwks route).
let jwksFetches = 0;

const server = http.createServer((req, res) => {
  if (req.url.startsWith(`${prefix}/admin/`)) return admin(req, res, req.url.slice(prefix.length));
  if (req.method === "GET" && req.url.split("?")[0] === `${prefix}/jwks`) jwksFetches++;
  if (prefix) {
    const rest = req.url.slice(prefix.length);
    if (!req.url.startsWith(prefix) || !/^([/?]|$)/.test(rest)) {
      res.writeHead(404);
      return res.end();
    }
    // As Express mounts it: oidc-provider finds the prefix from originalUrl.
    req.originalUrl = req.url;
    req.url = rest.startsWith("/") ? rest : `/${rest}`;
  }
  if (!handler) {
    res.writeHead(503);
    return res.end();
  }
  return handler(req, res);
});

server.listen(Number(args.port), "127.0.0.1", () => {
  issuer = `http://127.0.0.1:${server.address().port}${prefix}`;
  build();
  process.stdout.write(`${JSON.stringify({ issuer, kids: keys.map((k) => k.kid) })}\n`);
});

const stop = () => process.exit(0);
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
if (args["watch-stdin"]) {
  process.stdin.on("end", stop);
  process.stdin.on("close", stop);
  process.stdin.resume();
}
