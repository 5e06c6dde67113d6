// Which files `eslint .` lints under a legacy (.eslintrc*) config, asked of ESLint itself.
//
// Given the ESLint package a run uses and, per working folder, the candidate files,
// this walks the folder with that package's own legacy FileEnumerator (the code
// `eslint .` runs in legacy mode: the default `.js`, `--ext`, `overrides[].files`
// patterns, `ignorePatterns`, `.eslintignore`, the default ignores of dotfiles and
// node_modules) and answers, per candidate, one of:
//   "lint"        the walk yields it: `eslint .` lints it
//   "not_target"  not a file the walk selects (extension / overrides patterns)
//   "ignored"     a target the walk skips (an ignore pattern, or an ignored folder)
// A job whose configuration cannot be read answers {"error": message} instead.
// Nothing is written anywhere; stdin is one JSON request, stdout one JSON answer:
//   {"eslint": "/abs/node_modules/eslint", "jobs": [{"cwd": "/abs", "extensions": null | [".js"], "files": ["/abs/a.js"]}]}
//   {"jobs": [{"verdicts": {"/abs/a.js": "lint"}} | {"error": "..."}]}
"use strict";

const fs = require("node:fs");
const path = require("node:path");

function entryOf(root) {
	// The package's own `exports` entry for this API (ESLint 8.x and 9.x both export
	// FileEnumerator there); required by path, as `require` would resolve it.
	const meta = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
	let entry = meta.exports && meta.exports["./use-at-your-own-risk"];
	if (entry && typeof entry === "object") entry = entry.require || entry.default;
	if (typeof entry !== "string") throw new Error("this ESLint has no use-at-your-own-risk API");
	return path.join(root, entry);
}

async function answer(api, job) {
	const { FileEnumerator, LegacyESLint } = api;
	const enumerator = new FileEnumerator({
		cwd: job.cwd,
		extensions: job.extensions || null,
		errorOnUnmatchedPattern: false,
	});
	const linted = new Set();
	for (const { filePath } of enumerator.iterateFiles(["."])) {
		linted.add(filePath);
	}
	let eslint = null;
	const verdicts = {};
	for (const file of job.files) {
		const abs = path.resolve(job.cwd, file);
		if (linted.has(abs)) verdicts[file] = "lint";
		else if (!enumerator.isTargetPath(abs)) verdicts[file] = "not_target";
		else if (fs.existsSync(abs)) verdicts[file] = "ignored";
		else {
			// Content judged off the work tree (a staged blob): no walk can meet it, so
			// ESLint's own ignore answer for the path decides.
			eslint = eslint || new LegacyESLint({ cwd: job.cwd, extensions: job.extensions || null });
			verdicts[file] = (await eslint.isPathIgnored(abs)) ? "ignored" : "lint";
		}
	}
	return { verdicts };
}

async function main() {
	const request = JSON.parse(fs.readFileSync(0, "utf8"));
	const api = require(entryOf(request.eslint));
	if (typeof api.FileEnumerator !== "function" || typeof api.LegacyESLint !== "function") {
		throw new Error("this ESLint has no legacy FileEnumerator");
	}
	const jobs = [];
	for (const job of request.jobs) {
		try {
			jobs.push(await answer(api, job));
		} catch (err) {
			jobs.push({ error: String((err && err.message) || err).slice(0, 2000) });
		}
	}
	process.stdout.write(JSON.stringify({ jobs }));
}

main().catch((err) => {
	process.stderr.write(String((err && err.message) || err).slice(0, 2000) + "\n");
	process.exitCode = 2;
});
