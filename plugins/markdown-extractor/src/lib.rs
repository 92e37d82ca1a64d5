//! markdown-extractor: Markdown and plain text into headings, body, tables, captions, equations.

use mitra_plugin_sdk::extractor::{block, Block, BlockKind, Extract, Extraction};
use mitra_plugin_sdk::text::is_caption_start;

/// The plugin.
pub struct MarkdownExtractor;

/// Splits Markdown (or plain text) into blocks in document order.
pub fn markdown_blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut para: Vec<&str> = Vec::new();
    let mut table: Vec<String> = Vec::new();
    let mut fence: Option<(String, Vec<&str>)> = None;
    let mut math: Option<Vec<&str>> = None;
    let mut lines = text.lines().peekable();
    // YAML front matter.
    if lines.peek().map(|l| l.trim()) == Some("---") {
        lines.next();
        for l in lines.by_ref() {
            if l.trim() == "---" {
                break;
            }
        }
    }
    let flush_para = |para: &mut Vec<&str>, out: &mut Vec<Block>| {
        if para.is_empty() {
            return;
        }
        let p = para.join(" ").trim().to_string();
        para.clear();
        if p.is_empty() {
            return;
        }
        let kind = if is_caption_start(&p) {
            BlockKind::Caption
        } else {
            BlockKind::Body
        };
        out.push(block(kind, None, p));
    };
    let flush_table = |table: &mut Vec<String>, out: &mut Vec<Block>| {
        if !table.is_empty() {
            out.push(block(BlockKind::Table, None, table.join("\n")));
            table.clear();
        }
    };
    for line in lines {
        let t = line.trim();
        if let Some((marker, body)) = fence.as_mut() {
            if t.starts_with(marker.as_str()) {
                let code = body.join("\n");
                if !code.trim().is_empty() {
                    out.push(block(BlockKind::Body, None, code));
                }
                fence = None;
            } else {
                body.push(line);
            }
            continue;
        }
        if let Some(m) = math.as_mut() {
            if let Some(rest) = t.strip_suffix("$$") {
                m.push(rest);
                out.push(block(
                    BlockKind::Equation,
                    None,
                    m.join(" ").trim().to_string(),
                ));
                math = None;
            } else {
                m.push(t);
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            flush_para(&mut para, &mut out);
            flush_table(&mut table, &mut out);
            fence = Some((t[..3].to_string(), Vec::new()));
            continue;
        }
        if let Some(rest) = t.strip_prefix("$$") {
            flush_para(&mut para, &mut out);
            flush_table(&mut table, &mut out);
            if let Some(inner) = rest.strip_suffix("$$") {
                out.push(block(BlockKind::Equation, None, inner.trim().to_string()));
            } else {
                math = Some(vec![rest]);
            }
            continue;
        }
        if t.starts_with('|') && t.len() > 1 {
            flush_para(&mut para, &mut out);
            let cells: Vec<&str> = t.trim_matches('|').split('|').map(str::trim).collect();
            let separator = cells
                .iter()
                .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')));
            if !separator {
                table.push(cells.join("\t"));
            }
            continue;
        }
        flush_table(&mut table, &mut out);
        if t.is_empty() {
            flush_para(&mut para, &mut out);
            continue;
        }
        let hashes = t.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && t[hashes..].starts_with(' ') {
            flush_para(&mut para, &mut out);
            out.push(block(
                BlockKind::Heading,
                None,
                t[hashes..].trim().trim_end_matches('#').trim().to_string(),
            ));
            continue;
        }
        if let Some(rest) = t.strip_prefix("[^") {
            if let Some((_, note)) = rest.split_once("]:") {
                flush_para(&mut para, &mut out);
                out.push(block(BlockKind::Footnote, None, note.trim().to_string()));
                continue;
            }
        }
        if let Some(img) = t.strip_prefix("![") {
            if let Some((alt, _)) = img.split_once("](") {
                flush_para(&mut para, &mut out);
                if !alt.trim().is_empty() {
                    out.push(block(BlockKind::Caption, None, alt.trim().to_string()));
                }
                continue;
            }
        }
        if t.starts_with("- ") || t.starts_with("* ") || t.starts_with("+ ") {
            // List items are their own lines within the paragraph.
            para.push(line.trim());
            continue;
        }
        para.push(t);
    }
    if let Some((_, body)) = fence {
        let code = body.join("\n");
        if !code.trim().is_empty() {
            out.push(block(BlockKind::Body, None, code));
        }
    }
    if let Some(m) = math {
        out.push(block(
            BlockKind::Equation,
            None,
            m.join(" ").trim().to_string(),
        ));
    }
    flush_table(&mut table, &mut out);
    flush_para(&mut para, &mut out);
    out
}

impl Extract for MarkdownExtractor {
    fn extract(bytes: Vec<u8>, media_type: String) -> Result<Extraction, String> {
        let text = String::from_utf8(bytes).map_err(|e| {
            format!(
                "{media_type} is not valid UTF-8 (at byte {})",
                e.utf8_error().valid_up_to()
            )
        })?;
        Ok(Extraction {
            blocks: markdown_blocks(&text),
            skipped: Vec::new(),
        })
    }
}

mitra_plugin_sdk::extractor::export_extractor!(MarkdownExtractor);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_of_every_kind() {
        let md = "---\ntitle: x\n---\n# Signal region\n\nEvents pass\nthe trigger.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nFigure 3: The mT spectrum.\n\n$$ m_T = \\sqrt{2} $$\n\n[^1]: Footnote text.\n\n```\ncode\n```\n";
        let b = markdown_blocks(md);
        let kinds: Vec<BlockKind> = b.iter().map(|b| b.kind).collect();
        assert_eq!(
            kinds,
            vec![
                BlockKind::Heading,
                BlockKind::Body,
                BlockKind::Table,
                BlockKind::Caption,
                BlockKind::Equation,
                BlockKind::Footnote,
                BlockKind::Body
            ]
        );
        assert_eq!(b[1].text, "Events pass the trigger.");
        assert_eq!(b[2].text, "a\tb\n1\t2");
        assert_eq!(b[4].text, "m_T = \\sqrt{2}");
    }
}
