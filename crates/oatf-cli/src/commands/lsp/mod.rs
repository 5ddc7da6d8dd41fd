//! `oatf lsp`: a language server over standard input and output (D-115).
//!
//! It reuses the owners the other commands use: diagnostics are `oatf validate`'s (the SDK's parse
//! and validate), formatting is `oatf fmt`'s layout rewrite, rule texts are `oatf explain`'s, and
//! field descriptions, keys and enumerations come from the JSON Schema `oatf schema` prints. Hover,
//! completion, symbols and definitions read a line-based outline of the text as typed
//! (`outline.rs`, D-117), so they work while the document does not parse.
//!
//! Threads (D-116): the main loop owns the open documents, applies edits (incremental sync) and
//! answers requests, each from the current text; diagnostics run on a worker thread, which takes the
//! latest version of each document that changed and publishes its findings only if no newer version
//! arrived meanwhile, so a slow document never holds up the editor and superseded versions are
//! dropped. A panic in a handler answers that request with an error and the server goes on.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::{Condvar, Mutex, PoisonError};

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::{
    CodeActionParams, CodeActionProviderCapability, CompletionItem, CompletionOptions,
    CompletionParams, CompletionTextEdit, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DocumentFormattingParams, DocumentSymbolParams,
    DocumentSymbolResponse, GotoDefinitionParams, GotoDefinitionResponse, Hover, HoverContents,
    HoverParams, HoverProviderCapability, InitializeParams, Location, MarkedString, MarkupContent,
    MarkupKind, OneOf, PositionEncodingKind, PublishDiagnosticsParams, ServerCapabilities,
    ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind, TextEdit, Uri,
};
use serde_json::Value;

use crate::output::Output;

mod actions;
mod complete;
mod context;
mod diagnostics;
mod hover;
mod navigate;
mod outline;
mod schema;
mod text;
mod transport;

use outline::Outline;
use text::LineIndex;

/// Arguments of `oatf lsp`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Talk over standard input and output (the only transport; accepted because editors pass it).
    #[arg(long)]
    stdio: bool,
}

/// An open document.
struct Doc {
    uri: Uri,
    version: i32,
    text: String,
    /// The outline of `text`, read on the first request after a change.
    outline: Option<Outline>,
}

impl Doc {
    fn outline(&mut self) -> &Outline {
        self.outline.get_or_insert_with(|| Outline::new(&self.text))
    }
}

/// What the client said it supports that changes our answers.
struct Client {
    /// The markup of hover texts: Markdown where the client shows it, else plain text.
    hover_kind: MarkupKind,
    /// The markup of completion items' documentation.
    completion_kind: MarkupKind,
}

impl Default for Client {
    fn default() -> Self {
        Client {
            hover_kind: MarkupKind::PlainText,
            completion_kind: MarkupKind::PlainText,
        }
    }
}

impl Client {
    fn new(params: &InitializeParams) -> Self {
        let text = params.capabilities.text_document.as_ref();
        let markdown = |formats: Option<&Vec<MarkupKind>>| {
            if formats.is_some_and(|f| f.contains(&MarkupKind::Markdown)) {
                MarkupKind::Markdown
            } else {
                MarkupKind::PlainText
            }
        };
        Client {
            hover_kind: markdown(
                text.and_then(|t| t.hover.as_ref())
                    .and_then(|h| h.content_format.as_ref()),
            ),
            completion_kind: markdown(
                text.and_then(|t| t.completion.as_ref())
                    .and_then(|c| c.completion_item.as_ref())
                    .and_then(|i| i.documentation_format.as_ref()),
            ),
        }
    }
}

/// Work for the diagnostics thread.
enum Job {
    Check {
        uri: Uri,
        version: i32,
        text: Arc<str>,
    },
    Close(Uri),
}

impl Job {
    fn uri(&self) -> &Uri {
        match self {
            Job::Check { uri, .. } | Job::Close(uri) => uri,
        }
    }
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Kind(
            TextDocumentSyncKind::INCREMENTAL,
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![":".into(), "{".into(), ".".into()]),
            ..CompletionOptions::default()
        }),
        document_symbol_provider: Some(OneOf::Left(true)),
        definition_provider: Some(OneOf::Left(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        ..ServerCapabilities::default()
    }
}

pub(crate) fn run(_: Args, _: &mut Output<'_>) -> u8 {
    let (connection, io_threads) = match transport::stdio() {
        Ok(pair) => pair,
        Err(e) => {
            eprintln!("error: oatf lsp: {e}");
            return 1;
        }
    };
    let code = match serve(&connection) {
        Ok(()) => 0,
        Err(message) => {
            eprintln!("error: oatf lsp: {message}");
            1
        }
    };
    drop(connection);
    if let Err(e) = io_threads.join() {
        eprintln!("error: oatf lsp: {e}");
        return 1;
    }
    code
}

fn serve(connection: &Connection) -> Result<(), String> {
    let result = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": ServerInfo { name: "oatf".to_owned(), version: Some(env!("CARGO_PKG_VERSION").to_owned()) },
    });
    let (id, params) = connection.initialize_start().map_err(|e| e.to_string())?;
    let client = serde_json::from_value::<InitializeParams>(params)
        .map(|p| Client::new(&p))
        .unwrap_or_default();
    connection
        .initialize_finish(id, result)
        .map_err(|e| e.to_string())?;
    let jobs = Arc::new(Queue::default());
    let queue = Arc::clone(&jobs);
    let sender = connection.sender.clone();
    let worker = std::thread::Builder::new()
        .name("oatf-lsp-diagnostics".to_owned())
        .spawn(move || diagnostics_loop(&queue, |m| sender.send(m).is_ok()))
        .map_err(|e| e.to_string())?;
    let mut docs: HashMap<String, Doc> = HashMap::new();
    for message in &connection.receiver {
        match message {
            Message::Request(request) => {
                if connection
                    .handle_shutdown(&request)
                    .map_err(|e| e.to_string())?
                {
                    break;
                }
                let id = request.id.clone();
                let response =
                    catch_unwind(AssertUnwindSafe(|| answer(&mut docs, &client, request)))
                        .unwrap_or_else(|_| {
                            Response::new_err(
                                id,
                                ErrorCode::InternalError as i32,
                                "internal error (a bug in oatf lsp; the server goes on)".to_owned(),
                            )
                        });
                if connection.sender.send(Message::Response(response)).is_err() {
                    break;
                }
            }
            Message::Notification(notification) => {
                let _ = catch_unwind(AssertUnwindSafe(|| notify(&mut docs, notification, &jobs)));
            }
            Message::Response(_) => {}
        }
    }
    jobs.close();
    let _ = worker.join();
    Ok(())
}

/// Applies a notification: open, change and close of documents.
fn notify(docs: &mut HashMap<String, Doc>, notification: Notification, jobs: &Queue) {
    let check = |doc: &Doc| {
        jobs.push(Job::Check {
            uri: doc.uri.clone(),
            version: doc.version,
            text: Arc::from(doc.text.as_str()),
        });
    };
    match notification.method.as_str() {
        "textDocument/didOpen" => {
            let Ok(params) =
                notification.extract::<DidOpenTextDocumentParams>("textDocument/didOpen")
            else {
                return;
            };
            let document = params.text_document;
            let doc = Doc {
                uri: document.uri.clone(),
                version: document.version,
                text: document.text,
                outline: None,
            };
            check(&doc);
            docs.insert(document.uri.as_str().to_owned(), doc);
        }
        "textDocument/didChange" => {
            let Ok(params) =
                notification.extract::<DidChangeTextDocumentParams>("textDocument/didChange")
            else {
                return;
            };
            let Some(doc) = docs.get_mut(params.text_document.uri.as_str()) else {
                return;
            };
            for change in params.content_changes {
                text::apply_change(&mut doc.text, change.range, &change.text);
            }
            doc.version = params.text_document.version;
            doc.outline = None;
            check(doc);
        }
        "textDocument/didClose" => {
            let Ok(params) =
                notification.extract::<DidCloseTextDocumentParams>("textDocument/didClose")
            else {
                return;
            };
            docs.remove(params.text_document.uri.as_str());
            jobs.push(Job::Close(params.text_document.uri));
        }
        _ => {}
    }
}

/// The work waiting for the diagnostics thread: at most one job per document, the latest, so a burst
/// of edits holds one copy of each document's text, not one per edit.
#[derive(Default)]
struct Queue {
    state: Mutex<(Vec<Job>, bool)>,
    ready: Condvar,
}

impl Queue {
    fn push(&self, job: Job) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.0.retain(|p| p.uri() != job.uri());
        state.0.push(job);
        self.ready.notify_one();
    }

    /// Ends the thread once the queue is empty.
    fn close(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.1 = true;
        self.ready.notify_one();
    }

    /// The oldest waiting job; `None` once closed and empty.
    fn take(&self) -> Option<Job> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if !state.0.is_empty() {
                return Some(state.0.remove(0));
            }
            if state.1 {
                return None;
            }
            state = self
                .ready
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Whether a newer job for `uri` is waiting.
    fn has(&self, uri: &Uri) -> bool {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.0.iter().any(|p| p.uri() == uri)
    }
}

/// The diagnostics thread: checks the latest version of each changed document and publishes its
/// findings, unless a newer version came in while it was checked.
fn diagnostics_loop(queue: &Queue, send: impl Fn(Message) -> bool) {
    while let Some(job) = queue.take() {
        let (uri, version, diagnostics) = match job {
            Job::Close(uri) => (uri, None, Vec::new()),
            Job::Check { uri, version, text } => {
                let found = catch_unwind(AssertUnwindSafe(|| {
                    if context::is_oatf(&Outline::new(&text)) {
                        diagnostics::diagnose(&text)
                    } else {
                        Vec::new()
                    }
                }))
                .unwrap_or_default();
                if queue.has(&uri) {
                    continue;
                }
                (uri, Some(version), found)
            }
        };
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        };
        let note = Notification::new("textDocument/publishDiagnostics".to_owned(), params);
        if !send(Message::Notification(note)) {
            return;
        }
    }
}

fn error(id: RequestId, message: impl Into<String>) -> Response {
    Response::new_err(id, ErrorCode::RequestFailed as i32, message.into())
}

/// Answers one request from the current text of its document.
fn answer(docs: &mut HashMap<String, Doc>, client: &Client, request: Request) -> Response {
    let Request { id, method, params } = request;
    let uri: Option<Uri> = params
        .get("textDocument")
        .and_then(|d| d.get("uri"))
        .and_then(|u| serde_json::from_value(u.clone()).ok());
    let Some(doc) = uri.as_ref().and_then(|u| docs.get_mut(u.as_str())) else {
        return match method.as_str() {
            "textDocument/hover"
            | "textDocument/completion"
            | "textDocument/documentSymbol"
            | "textDocument/definition"
            | "textDocument/formatting"
            | "textDocument/codeAction" => Response::new_ok(id, Value::Null),
            _ => Response::new_err(
                id,
                ErrorCode::MethodNotFound as i32,
                format!("oatf lsp does not answer {method}"),
            ),
        };
    };
    doc.outline();
    let Doc {
        text, outline, uri, ..
    } = &*doc;
    let Some(outline) = outline.as_ref().filter(|o| context::is_oatf(o)) else {
        return Response::new_ok(id, Value::Null);
    };
    let index = LineIndex::new(text);
    let result = match method.as_str() {
        "textDocument/hover" => {
            let Ok(p) = serde_json::from_value::<HoverParams>(params) else {
                return error(id, "invalid hover parameters");
            };
            let offset = index.offset(text, p.text_document_position_params.position);
            hover::hover(text, outline, offset)
                .map(|(value, span)| Hover {
                    contents: match client.hover_kind {
                        MarkupKind::Markdown => HoverContents::Markup(MarkupContent {
                            kind: MarkupKind::Markdown,
                            value,
                        }),
                        MarkupKind::PlainText => HoverContents::Scalar(MarkedString::String(value)),
                    },
                    range: Some(index.range(text, span)),
                })
                .map(serde_json::to_value)
        }
        "textDocument/completion" => {
            let Ok(p) = serde_json::from_value::<CompletionParams>(params) else {
                return error(id, "invalid completion parameters");
            };
            let offset = index.offset(text, p.text_document_position.position);
            let kind = client.completion_kind.clone();
            let found = complete::complete(text, outline, offset, kind);
            let range = index.range(text, found.replace);
            let items: Vec<CompletionItem> = found
                .items
                .into_iter()
                .map(|mut item| {
                    let new_text = item
                        .insert_text
                        .take()
                        .unwrap_or_else(|| item.label.clone());
                    item.text_edit = Some(CompletionTextEdit::Edit(TextEdit::new(range, new_text)));
                    item
                })
                .collect();
            Some(serde_json::to_value(items))
        }
        "textDocument/documentSymbol" => {
            let Ok(_) = serde_json::from_value::<DocumentSymbolParams>(params) else {
                return error(id, "invalid documentSymbol parameters");
            };
            let symbols = navigate::symbols(text, outline);
            Some(serde_json::to_value(DocumentSymbolResponse::Nested(
                symbols,
            )))
        }
        "textDocument/definition" => {
            let Ok(p) = serde_json::from_value::<GotoDefinitionParams>(params) else {
                return error(id, "invalid definition parameters");
            };
            let offset = index.offset(text, p.text_document_position_params.position);
            navigate::definition(text, outline, offset).map(|span| {
                serde_json::to_value(GotoDefinitionResponse::Scalar(Location::new(
                    uri.clone(),
                    index.range(text, span),
                )))
            })
        }
        "textDocument/formatting" => {
            let Ok(_) = serde_json::from_value::<DocumentFormattingParams>(params) else {
                return error(id, "invalid formatting parameters");
            };
            match actions::format(text) {
                Ok(edits) => Some(serde_json::to_value(edits)),
                Err(message) => return error(id, message),
            }
        }
        "textDocument/codeAction" => {
            let Ok(p) = serde_json::from_value::<CodeActionParams>(params) else {
                return error(id, "invalid codeAction parameters");
            };
            let only = p.context.only.as_deref();
            let actions = actions::code_actions(uri, text, outline, &p.context.diagnostics, only);
            Some(serde_json::to_value(actions))
        }
        _ => {
            return Response::new_err(
                id,
                ErrorCode::MethodNotFound as i32,
                format!("oatf lsp does not answer {method}"),
            );
        }
    };
    match result {
        None => Response::new_ok(id, Value::Null),
        Some(Ok(value)) => Response::new_ok(id, value),
        Some(Err(e)) => error(id, e.to_string()),
    }
}
