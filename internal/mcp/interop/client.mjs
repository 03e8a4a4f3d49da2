// Connects to webacq's MCP endpoint with the official TypeScript SDK client
// over streamable HTTP, lists the tools, calls svc_fetch, then crawls a site
// of large pages with svc_gyre, whose result is capped. Prints one JSON line
// for the Go test to check: node client.mjs BASE_URL KEY PAGE_URL CRAWL_URL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [base, key, page, crawlStart] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL("/api/mcp", base), {
  requestInit: { headers: { Authorization: `Bearer ${key}` } },
});
const client = new Client({ name: "webacq-interop", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
const result = await client.callTool({ name: "svc_fetch", arguments: { url: page, tier: "http" } });
const progress = [];
const crawl = await client.callTool(
  { name: "svc_gyre", arguments: { url: crawlStart, maxPages: 20, maxDepth: 30, tier: "http" } },
  undefined,
  { onprogress: (p) => progress.push(p.progress) },
);
const crawlText = crawl.content?.[0]?.text ?? "";
let capped = {};
try {
  // What an agent reads: the marker, and the pages it got whole.
  const data = JSON.parse(crawlText);
  capped = { cut: data.cut ?? null, pages: (data.pages ?? []).map((p) => p.url), totalPages: data.totalPages };
} catch (e) {
  capped = { parseError: String(e) };
}
console.log(JSON.stringify({
  server: client.getServerVersion(),
  protocol: transport.protocolVersion ?? null,
  tools: tools.map((t) => t.name).sort(),
  fetchSchemaRequired: tools.find((t) => t.name === "svc_fetch")?.inputSchema?.required ?? [],
  isError: result.isError ?? false,
  text: result.content?.[0]?.text ?? "",
  crawl: { isError: crawl.isError ?? false, bytes: Buffer.byteLength(crawlText), progress, ...capped },
}));
await client.close();
