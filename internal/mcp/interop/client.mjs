// Connects to webacq's MCP endpoint with the official TypeScript SDK client
// over streamable HTTP, lists the tools and calls svc_fetch. Prints one JSON
// line for the Go test to check: node client.mjs BASE_URL KEY PAGE_URL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [base, key, page] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL("/api/mcp", base), {
  requestInit: { headers: { Authorization: `Bearer ${key}` } },
});
const client = new Client({ name: "webacq-interop", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
const result = await client.callTool({ name: "svc_fetch", arguments: { url: page, tier: "http" } });
console.log(JSON.stringify({
  server: client.getServerVersion(),
  protocol: transport.protocolVersion ?? null,
  tools: tools.map((t) => t.name).sort(),
  fetchSchemaRequired: tools.find((t) => t.name === "svc_fetch")?.inputSchema?.required ?? [],
  isError: result.isError ?? false,
  text: result.content?.[0]?.text ?? "",
}));
await client.close();
