//! Lint findings as annotated source snippets (annotate-snippets, rustc's shape), for
//! `fleet lint` and the lint step of `fleet gate`.

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

use fleet::lint::Finding;

pub fn findings(findings: &[Finding]) {
    let renderer = Renderer::styled();
    for f in findings {
        let line = f.source_line.as_str();
        let byte = |col: usize| {
            line.char_indices()
                .nth(col.saturating_sub(1))
                .map_or(line.len(), |(i, _)| i)
        };
        let start = byte(f.column);
        let end = if f.end_line == f.line {
            byte(f.end_column)
                .max(start + 1)
                .min(line.len().max(start + 1))
        } else {
            line.len().max(start + 1)
        };
        let end = end.min(line.len()).max(start);
        let title = Level::ERROR
            .primary_title(f.message.as_str())
            .id(f.rule.as_str());
        let snippet = Snippet::source(line)
            .line_start(f.line)
            .path(f.path.as_str())
            .annotation(AnnotationKind::Primary.span(start..end));
        let group = Group::with_title(title)
            .element(snippet)
            .element(Level::HELP.message(f.help.as_str()));
        anstream::println!("{}\n", renderer.render(&[group]));
    }
}
