// The OATF extension: starts `oatf lsp` for YAML files and lets it answer. The server itself decides
// which YAML files are OATF documents (a root `oatf` or `attack` key; D-118), so other YAML is left
// to yaml-language-server alone.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("oatf").get("server.path") || "oatf";
  const serverOptions = { command, args: ["lsp"], transport: TransportKind.stdio };
  const clientOptions = {
    documentSelector: [
      { scheme: "file", language: "yaml" },
      { scheme: "untitled", language: "yaml" },
    ],
  };
  client = new LanguageClient("oatf", "OATF", serverOptions, clientOptions);
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
