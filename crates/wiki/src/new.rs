//! `wiki new <KIND> <TITLE> [--id ID]`: start a page from its kind's template and commit it.

use wiki_cli::{CliError, Format, GlobalArgs, Output, exit, iso_millis};
use wiki_digest::compile::{CompileOptions, compile};
use wiki_digest::context::{CommitSpec, VaultContext};
use wiki_parse::{markers, slug, yaml};
use wiki_store::Change;

/// Start a page from its kind's template and commit it, with the compiled files it changes
/// (indexes, Related blocks, the digest), as one commit (`Wiki-Op: new`).
///
/// The page is `<dir>/<slug of TITLE>.md` (`entities/`, `concepts/`, `sources/`, `syntheses/`)
/// with the frontmatter `pageType`, `id` (`--id`, else `<kind>.<slug>`), `title`,
/// `status: active`, `createdAt` and `updatedAt` (now), then the title as heading and an empty
/// human block under `## Notes` (the compile adds the `## Related` block). A page that exists
/// already, or an id another page uses, is refused (exit 2) and nothing is written.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The kind of page: entity, concept, source, synthesis.
    #[arg(value_enum, value_name = "KIND")]
    pub kind: Kind,

    /// The page title (also gives the file name and the default id).
    #[arg(value_name = "TITLE")]
    pub title: String,

    /// The page id (default: `<kind>.<slug of TITLE>`).
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
}

/// The kinds of page a person starts (reports are generated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// A person, system, team… (`entities/`).
    Entity,
    /// An idea or topic (`concepts/`).
    Concept,
    /// Where knowledge comes from (`sources/`).
    Source,
    /// A summary across pages (`syntheses/`).
    Synthesis,
}

impl Kind {
    /// The `pageType` value and id prefix.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Entity => "entity",
            Kind::Concept => "concept",
            Kind::Source => "source",
            Kind::Synthesis => "synthesis",
        }
    }

    /// The vault directory of the kind.
    pub fn dir(self) -> &'static str {
        match self {
            Kind::Entity => "entities",
            Kind::Concept => "concepts",
            Kind::Source => "sources",
            Kind::Synthesis => "syntheses",
        }
    }
}

/// The vault-relative path and the bytes of a new page of `kind` (the template).
pub fn render(kind: Kind, title: &str, id: Option<&str>, now_iso: &str) -> (String, String) {
    let stem = slug::slugify_page_stem(title);
    let path = format!("{}/{}", kind.dir(), slug::page_filename(&stem));
    let id = id.map_or_else(|| format!("{}.{stem}", kind.name()), str::to_string);
    let text = format!(
        "---\npageType: {}\nid: {}\ntitle: {}\nstatus: active\ncreatedAt: {now_iso}\n\
         updatedAt: {now_iso}\n---\n\n# {}\n\n## Notes\n{}\n",
        kind.name(),
        yaml::scalar_string(&id),
        yaml::scalar_string(title),
        title,
        markers::empty_human_block()
    );
    (path, text)
}

fn check_input(args: &Args) -> Result<(), CliError> {
    if args.title.trim().is_empty() || args.title.contains(['\n', '\r']) {
        return Err(CliError::Usage(
            "TITLE must be one non-empty line".to_string(),
        ));
    }
    if let Some(id) = &args.id
        && (id.trim().is_empty() || id.chars().any(char::is_whitespace))
    {
        return Err(CliError::Usage(format!(
            "--id {id:?}: an id is one word without spaces (e.g. entity.billing-service)"
        )));
    }
    Ok(())
}

/// Run `wiki new`.
pub fn run(global: &GlobalArgs, args: &Args) -> Result<u8, CliError> {
    let format = global.format_among(Format::Text, &[Format::Text, Format::Json])?;
    check_input(args)?;
    let mut ctx = VaultContext::open(global)?;
    ctx.lock()?;
    let now = ctx.now()?;
    let (path, text) = render(
        args.kind,
        args.title.trim(),
        args.id.as_deref(),
        &iso_millis(now),
    );
    let mut snapshot = ctx.snapshot()?;
    if snapshot.get(&path).is_some() || ctx.root().join(&path).exists() {
        return Err(CliError::Runtime(format!(
            "{path}: already exists; edit it, or choose another title"
        )));
    }
    let page = Change::write(path.clone(), text.into_bytes());
    snapshot.overlay(std::slice::from_ref(&page));
    let opts = CompileOptions::new(now).with_render(wiki_digest::RenderConfig::load()?);
    let compiled = compile(&snapshot, &opts);
    let created = compiled.pages.iter().find(|p| p.path == path);
    let id = created
        .and_then(|p| p.summary.id.clone())
        .unwrap_or_default();
    if let Some(other) = compiled
        .pages
        .iter()
        .find(|p| p.path != path && p.summary.id.as_deref() == Some(id.as_str()))
    {
        return Err(CliError::Runtime(format!(
            "id {id} is already used by {}; choose another with --id",
            other.path
        )));
    }
    let mut changes = vec![page];
    for c in compiled.changes {
        match changes.iter_mut().find(|e| e.path == c.path) {
            Some(existing) => *existing = c,
            None => changes.push(c),
        }
    }
    let spec = CommitSpec::new("new", format!("Create {} page {}", args.kind.name(), path));
    let outcome = ctx.commit(&changes, &spec)?;
    let commit = outcome.commit.map(|c| c.to_string()).unwrap_or_default();
    let mut out = Output::new();
    match format {
        Format::Json => out.json(&serde_json::json!({
            "path": path,
            "id": id,
            "kind": args.kind.name(),
            "title": args.title.trim(),
            "commit": commit,
        }))?,
        _ => out.line(&format!(
            "Created {path} ({id}) in commit {}.",
            &commit[..commit.len().min(7)]
        ))?,
    }
    out.flush()?;
    Ok(exit::OK)
}
