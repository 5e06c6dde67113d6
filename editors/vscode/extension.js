// Starts `orchestrate lsp` over stdio for the languages orchestrate checks.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("orchestrate").get("path") || "orchestrate";
  const server = { command, args: ["lsp"] };
  client = new LanguageClient(
    "orchestrate",
    "orchestrate",
    { run: server, debug: server },
    {
      documentSelector: ["python", "javascript", "typescript", "typescriptreact", "ruby"].map(
        (language) => ({ scheme: "file", language })
      ),
    }
  );
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
