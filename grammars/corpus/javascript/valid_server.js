"use strict";

const http = require("node:http");
const { readFile } = require("node:fs/promises");

const routes = new Map([
  ["/", () => "home"],
  ["/health", () => JSON.stringify({ ok: true })],
]);

async function handle(req, res) {
  const route = routes.get(req.url);
  if (!route) {
    res.writeHead(404);
    return res.end("not found");
  }
  try {
    res.end(await Promise.resolve(route(req)));
  } catch (err) {
    console.error(err);
    res.writeHead(500).end();
  }
}

http.createServer(handle).listen(process.env.PORT ?? 3000);
module.exports = { handle, readFile };
