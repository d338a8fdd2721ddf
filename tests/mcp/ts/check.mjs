// Checks of the Stateforge MCP server with the official TypeScript SDK, run by tests/mcp/test_typescript.py.
//   node check.mjs stdio-lines COMMAND ARG...      raw bad lines on a StdioClientTransport's pipe, then a call
//   node check.mjs http-sessions URL N TOOL ARGS   N clients one after another: connect, call, close()
//   node check.mjs http-refused URL N TOOL ARGS    one holder, then N more clients while it is open
//   node check.mjs tools-stdio COMMAND ARG...      tools/list over stdio (names and annotations)
// Prints one JSON object on stdout.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, ...rest] = process.argv.slice(2);
const newClient = () => new Client({ name: "stateforge-ts-check", version: "0" });
const outcome = (err) => ({ ok: false, code: err?.code ?? null, message: String(err?.message ?? err) });

async function stdioLines(command, args) {
  const transport = new StdioClientTransport({ command, args, stderr: "pipe" });
  const client = newClient();
  await client.connect(transport);
  // The answers to bad lines are read off the server's stdout beside the SDK's own reader: the SDK's
  // schema takes an error response's id as absent or a string or number, so it reports JSON-RPC's
  // `"id": null` (what a parse error carries) through onerror instead of onmessage.
  const answers = [];
  let pending = "";
  transport._process.stdout.on("data", (chunk) => {
    pending += chunk.toString("utf8");
    let newline;
    while ((newline = pending.indexOf("\n")) >= 0) {
      const message = JSON.parse(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      if ("error" in message && (message.id === null || message.id === 900)) answers.push(message);
    }
  });
  let sdkErrors = 0;
  transport.onerror = () => { sdkErrors += 1; };
  const lines = JSON.parse(process.env.BAD_LINES);
  for (const line of lines) transport._process.stdin.write(line + "\n");
  const deadline = Date.now() + 30000;
  while (answers.length < lines.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const call = await client.callTool({ name: process.env.TOOL, arguments: JSON.parse(process.env.ARGS) });
  await client.close();
  return { answers, call, sdkErrors };
}

async function httpSessions(url, n, tool, args) {
  const runs = [];
  for (let i = 0; i < n; i++) {
    const client = newClient();
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const result = await client.callTool({ name: tool, arguments: JSON.parse(args) });
      runs.push({ ok: true, isError: result.isError ?? false, structured: result.structuredContent });
    } catch (err) {
      runs.push(outcome(err));
    } finally {
      await client.close(); // drops the connection; sends no DELETE
    }
  }
  return { runs };
}

async function httpRefused(url, n, tool, args) {
  const holder = newClient();
  await holder.connect(new StreamableHTTPClientTransport(new URL(url)));
  const held = await holder.callTool({ name: tool, arguments: JSON.parse(args) });
  const attempts = [];
  for (let i = 0; i < n; i++) {
    const client = newClient();
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      attempts.push({ ok: true });
    } catch (err) {
      attempts.push(outcome(err));
    } finally {
      await client.close();
    }
  }
  await holder.close();
  return { held: { isError: held.isError ?? false }, attempts };
}

async function toolsStdio(command, args) {
  const client = newClient();
  await client.connect(new StdioClientTransport({ command, args, stderr: "pipe" }));
  const { tools } = await client.listTools();
  await client.close();
  return { tools: tools.map((t) => ({ name: t.name, annotations: t.annotations })) };
}

const modes = {
  "stdio-lines": () => stdioLines(rest[0], rest.slice(1)),
  "http-sessions": () => httpSessions(rest[0], Number(rest[1]), rest[2], rest[3]),
  "http-refused": () => httpRefused(rest[0], Number(rest[1]), rest[2], rest[3]),
  "tools-stdio": () => toolsStdio(rest[0], rest.slice(1)),
};
const result = await modes[mode]();
process.stdout.write(JSON.stringify(result) + "\n");
process.exit(0);
