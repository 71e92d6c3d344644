//! The MCP server: [`rmcp`]'s server role over stdio, the tool table and the context prompt.

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, Prompt, PromptArgument, PromptMessage,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, Role, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value as Json};
use wiki_cli::CliError;

use crate::context;
use crate::tools::{self, Params, State, ToolSpec};

/// The server: the tool table and the state the calls share.
pub struct WikiServer {
    tools: Vec<ToolSpec>,
    state: Arc<Mutex<State>>,
}

impl WikiServer {
    /// A server with every tool of [`tools::all`].
    pub fn new(state: State) -> WikiServer {
        WikiServer {
            tools: tools::all(),
            state: Arc::new(Mutex::new(state)),
        }
    }

    fn tool_names(&self) -> Vec<&'static str> {
        self.tools.iter().map(|t| t.name).collect()
    }

    /// Run the tool `name` with `args`: `Ok` with the result (a failure of the tool is a result
    /// with `isError: true`), `Err` for an unknown tool (a protocol error).
    pub fn call(&self, name: &str, args: &Map<String, Json>) -> Result<CallToolResult, ErrorData> {
        let Some(spec) = self.tools.iter().find(|t| t.name == name) else {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool: {name}"),
                None,
            ));
        };
        let schema = (spec.schema)();
        let outcome = Params::new(spec.name, args, &schema).and_then(|params| {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            // A bug in one call must not end the session: it is that call's error.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                (spec.call)(&mut state, &params)
            }))
            .unwrap_or_else(|panic| {
                let what = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Err(format!("{name}: internal error: {what}"))
            })
        });
        Ok(match outcome {
            Ok(reply) => {
                let mut result = CallToolResult::success(vec![ContentBlock::text(reply.text)]);
                result.structured_content = Some(Json::Object(reply.structured));
                result
            }
            Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
        })
    }

    fn context_text(&self, max_chars: Option<usize>) -> Result<String, String> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        context::text(&state, &self.tool_names(), max_chars)
    }
}

fn tool_of(spec: &ToolSpec) -> Tool {
    let schema = match (spec.schema)() {
        Json::Object(m) => m,
        _ => Map::new(),
    };
    let mut tool = Tool::new(spec.name, spec.description, Arc::new(schema));
    tool.title = Some(spec.title.to_string());
    let mut hints = ToolAnnotations::new();
    hints.read_only_hint = Some(spec.read_only);
    hints.destructive_hint = Some(false);
    hints.open_world_hint = Some(false);
    tool.annotations = Some(hints);
    tool
}

/// `maxChars` of the prompt's arguments: a whole number, or an error naming it.
fn max_chars(args: Option<&Map<String, Json>>) -> Result<Option<usize>, ErrorData> {
    let Some(value) = args.and_then(|a| a.get("maxChars")) else {
        return Ok(None);
    };
    let parsed = match value {
        Json::String(s) => s.trim().parse::<usize>().ok(),
        Json::Number(n) => n.as_u64().map(|n| n as usize),
        _ => None,
    };
    parsed.map(Some).ok_or_else(|| {
        ErrorData::invalid_params(
            format!("maxChars must be a whole number (got {value})"),
            None,
        )
    })
}

impl ServerHandler for WikiServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_prompts()
            .enable_resources()
            .enable_tools()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("wiki", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "A git-native knowledge vault. Search first (wiki_search, memory_search with \
                 corpus=all), then read (wiki_get, memory_get); change it only with wiki_apply \
                 (one commit per call) and run wiki_lint after updates.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.tools.iter().map(tool_of).collect(),
        ))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).map(tool_of)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        self.call(&request.name, &args).map(CallToolResponse::from)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let mut prompt = Prompt::new(
            context::PROMPT,
            Some(context::DESCRIPTION),
            Some(vec![PromptArgument::new("maxChars").with_description(
                "At most this many characters (whole lines are kept).",
            )]),
        );
        prompt.title = Some("Compiled wiki digest".into());
        Ok(ListPromptsResult::with_all_items(vec![prompt]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != context::PROMPT {
            return Err(ErrorData::invalid_params(
                format!("Unknown prompt: {}", request.name),
                None,
            ));
        }
        let max = max_chars(request.arguments.as_ref())?;
        let text = self
            .context_text(max)
            .map_err(|e| ErrorData::internal_error(e, None))?;
        let result = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
            .with_description(context::DESCRIPTION);
        Ok(GetPromptResponse::from(result))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resource = Resource::new(context::URI, context::PROMPT)
            .with_title("Compiled wiki digest")
            .with_description(context::DESCRIPTION)
            .with_mime_type("text/markdown");
        Ok(ListResourcesResult::with_all_items(vec![resource]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != context::URI {
            return Err(ErrorData::resource_not_found(
                format!("Unknown resource: {}", request.uri),
                None,
            ));
        }
        let text = self
            .context_text(None)
            .map_err(|e| ErrorData::internal_error(e, None))?;
        let contents = ResourceContents::text(text, context::URI).with_mime_type("text/markdown");
        Ok(ReadResourceResponse::from(ReadResourceResult::new(vec![
            contents,
        ])))
    }
}

/// Serve `state` on stdin/stdout until the client closes the connection.
pub fn serve(state: State) -> Result<(), CliError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Runtime(format!("cannot start the MCP server: {e}")))?;
    runtime.block_on(async {
        let server = WikiServer::new(state);
        let running = server
            .serve(rmcp::transport::io::stdio_pipes())
            .await
            .map_err(|e| CliError::Runtime(format!("MCP initialization failed: {e}")))?;
        running
            .waiting()
            .await
            .map_err(|e| CliError::Runtime(format!("MCP server stopped: {e}")))?;
        Ok(())
    })
}
