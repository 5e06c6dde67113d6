// A persistent ESLint for orchestrate's warm engine (plugins/eslint_warm.py).
//
// Started as `node eslint_worker.mjs <eslint package root>` in the folder ESLint runs
// in, with the environment the ESLint CLI would get. It loads that package's own CLI
// module (lib/cli.js, the code bin/eslint.js runs) once, then answers requests one at
// a time: each is the CLI's argument list (and, for --stdin, the text), run through
// `cli.execute` exactly as bin/eslint.js does, so every request builds a fresh ESLint
// and reads the configuration again. The reply carries the bytes the CLI would write
// to stdout and stderr and the exit code it would end with (2 and the "Oops!" banner
// on a fatal error, as bin/eslint.js prints it).
//
// Protocol (stdin / stdout, one request at a time):
//   ready:   {"ready": true, "version": "<package.json version>"}\n
//   request: {"argv": ["--format", ...], "stdin": <base64 or null>}\n
//   reply:   {"exit": N, "stdout": <byte count>, "stderr": <byte count>}\n
//            followed by exactly those stdout bytes, then those stderr bytes;
//            or {"stale": "<file>"}\n when a module file the worker loaded (a config's
//            own imports, a plugin) changed since: the worker then exits, unanswered.
// Output that is not part of a reply (a late write by a plugin) is dropped. An
// uncaught exception or unhandled rejection ends the worker (exit 70): the caller
// runs that batch through the CLI instead. End of stdin ends the worker.

import fs from "node:fs";
import { createRequire, register } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import util from "node:util";
import { MessageChannel } from "node:worker_threads";

const pkgRoot = path.resolve(process.argv[2] ?? "");
const requireFromPkg = createRequire(path.join(pkgRoot, "package.json"));
const { version } = requireFromPkg("./package.json");
const binPath = path.join(pkgRoot, "bin", "eslint.js");

// Every module file loaded (ES modules through a load hook, CommonJS through the
// require cache) and its stat when first seen: a change means a fresh worker.
const seen = new Map();
function fingerprint(file) {
  try {
    const st = fs.statSync(file);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return "gone";
  }
}
function note(file) {
  if (!seen.has(file)) seen.set(file, fingerprint(file));
}
const hooks = `let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, nextLoad) {
  if (url.startsWith("file:")) port.postMessage(url);
  return nextLoad(url, context);
}`;
const { port1, port2 } = new MessageChannel();
port1.on("message", (url) => {
  try {
    note(fileURLToPath(url.split("?")[0]));
  } catch {
    // not a file path
  }
});
port1.unref();
register(`data:text/javascript,${encodeURIComponent(hooks)}`, {
  data: { port: port2 },
  transferList: [port2],
});

function changed() {
  for (const file of Object.keys(requireFromPkg.cache)) note(file);
  for (const [file, print] of seen) {
    if (fingerprint(file) !== print) return file;
  }
  return null;
}

const realOut = process.stdout.write.bind(process.stdout);
let capture = null; // {out: Buffer[], err: Buffer[]} while a request runs

function sink(which) {
  return (chunk, encoding, callback) => {
    const cb = typeof encoding === "function" ? encoding : callback;
    if (capture !== null) {
      const enc = typeof encoding === "string" ? encoding : "utf8";
      capture[which].push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), enc));
    }
    if (typeof cb === "function") process.nextTick(cb);
    return true;
  };
}
process.stdout.write = sink("out");
process.stderr.write = sink("err");

function die() {
  process.exit(70);
}
process.on("uncaughtException", die);
process.on("unhandledRejection", die);

function send(header, out = Buffer.alloc(0), err = Buffer.alloc(0)) {
  realOut(Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), out, err]));
}

// bin/eslint.js getErrorMessage: a message template when the error names one, else
// the stack, else the value itself.
function errorMessage(error) {
  if (typeof error !== "object" || error === null) return String(error);
  if (typeof error.messageTemplate === "string") {
    try {
      const template = requireFromPkg(`./messages/${error.messageTemplate}.js`);
      return template(error.messageData || {});
    } catch {
      // fall back to the stack, as bin/eslint.js does
    }
  }
  if (typeof error.stack === "string") return error.stack;
  return util.format("%o", error);
}

const cliModule = await import(pathToFileURL(path.join(pkgRoot, "lib", "cli.js")).href);
const cli = cliModule.default ?? cliModule;
if (typeof cli.execute !== "function") die();

async function handle(request) {
  const moved = changed();
  if (moved !== null) {
    send({ stale: moved });
    process.exit(0);
  }
  const argv = request.argv;
  const text =
    typeof request.stdin === "string" ? Buffer.from(request.stdin, "base64").toString("utf8") : null;
  capture = { out: [], err: [] };
  let exit;
  try {
    exit = await cli.execute([process.execPath, binPath, ...argv], text, true);
  } catch (error) {
    exit = 2;
    console.error(`\nOops! Something went wrong! :(\n\nESLint: ${version}\n\n${errorMessage(error)}`);
  }
  const { out, err } = capture;
  capture = null;
  const stdout = Buffer.concat(out);
  const stderr = Buffer.concat(err);
  send({ exit: Number.isInteger(exit) ? exit : 2, stdout: stdout.length, stderr: stderr.length }, stdout, stderr);
}

// One request at a time, in arrival order.
let pending = "";
let chain = Promise.resolve();
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  let nl;
  while ((nl = pending.indexOf("\n")) >= 0) {
    const line = pending.slice(0, nl);
    pending = pending.slice(nl + 1);
    let request;
    try {
      request = JSON.parse(line);
    } catch {
      die();
    }
    if (!request || !Array.isArray(request.argv) || !request.argv.every((a) => typeof a === "string")) die();
    chain = chain.then(() => handle(request));
  }
});
process.stdin.on("end", () => {
  chain.then(() => process.exit(0));
});
send({ ready: true, version });
