// A real OAuth 2.1 / OpenID authorization server for the tests: oidc-provider (npm),
// issuing RS256 JWT access tokens through the client_credentials grant, bound to the
// resource (RFC 8707) the client asks for.
//
//   node authorization_server.mjs PORT [ISSUER]
//
// Prints one line `ready <issuer>` on stdout once it listens. Clients (secret = id + "-secret"):
//   mcp-test    any of the video-research scopes, tokens live 600 s
//   mcp-expiring  the same, tokens live 1 s
import Provider from "oidc-provider";

const port = Number(process.argv[2]);
const issuer = process.argv[3] || `http://127.0.0.1:${port}`;
const scopes = ["video-research:viewer", "video-research:blessed", "video-research:admin"];

const client = (id) => ({
  client_id: id,
  client_secret: `${id}-secret`,
  grant_types: ["client_credentials"],
  redirect_uris: [],
  response_types: [],
  scope: scopes.join(" "),
});

const provider = new Provider(issuer, {
  clients: [client("mcp-test"), client("mcp-expiring")],
  scopes,
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // Any http(s) resource the client names: the resource server decides what it accepts.
      getResourceServerInfo: (ctx, resource, client) => ({
        scope: scopes.join(" "),
        audience: resource,
        accessTokenTTL: client.clientId === "mcp-expiring" ? 1 : 600,
        accessTokenFormat: "jwt",
        jwt: { sign: { alg: "RS256" } },
      }),
    },
  },
});
provider.proxy = false;

const server = provider.listen(port, "127.0.0.1", () => {
  process.stdout.write(`ready ${issuer}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
