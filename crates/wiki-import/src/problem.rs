//! A bad input found during an import: reported as `path[:line]: what is wrong` (on stderr and
//! in the JSON result) while the rest of the import goes on.

use serde::Serialize;

/// One input the import could not use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The input path (absolute, or as the user gave it) or URL.
    pub path: String,
    /// 1-based line, when the problem is at a line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// The message already names the path (the original's own sentences): printed alone.
    #[serde(skip)]
    pub bare: bool,
}

impl Problem {
    /// A problem with `path` as a whole.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            path: path.into(),
            line: None,
            message: message.into(),
            bare: false,
        }
    }

    /// A problem whose message already names the path (printed as is).
    pub fn bare(path: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            bare: true,
            ..Problem::new(path, message)
        }
    }

    /// A problem at a line of `path`.
    pub fn at(path: impl Into<String>, line: usize, message: impl Into<String>) -> Problem {
        Problem {
            line: Some(line),
            ..Problem::new(path, message)
        }
    }

    /// Print it on stderr (`<program>: path[:line]: message`).
    pub fn report(&self) {
        wiki_cli::warn(&wiki_cli::program_name(), &self.to_string());
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            _ if self.bare => f.write_str(&self.message),
            Some(line) => write!(f, "{}:{line}: {}", self.path, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

/// Decode `bytes` as UTF-8, or say where it is not: the line and column (1-based, in
/// characters) of the first invalid byte.
pub fn utf8<'a>(path: &str, bytes: &'a [u8]) -> Result<&'a str, Problem> {
    std::str::from_utf8(bytes).map_err(|e| {
        let valid = &bytes[..e.valid_up_to()];
        let line = memchr_count(valid) + 1;
        let line_start = valid.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        // The prefix is valid UTF-8 (that is what `valid_up_to` means).
        let column = String::from_utf8_lossy(&valid[line_start..])
            .chars()
            .count()
            + 1;
        Problem::at(
            path,
            line,
            format!(
                "not valid UTF-8 (byte 0x{:02x} at column {column}); convert the file to UTF-8",
                bytes[e.valid_up_to()]
            ),
        )
    })
}

fn memchr_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|b| **b == b'\n').count()
}

/// Whether the first 4096 bytes hold a NUL byte: the original's test for a binary file.
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(4096)].contains(&0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_errors_name_line_and_column() {
        let e = utf8("/x/a.md", b"ok\nh\xc3\xa9 \xff!").unwrap_err();
        assert_eq!(
            e.to_string(),
            "/x/a.md:2: not valid UTF-8 (byte 0xff at column 4); convert the file to UTF-8"
        );
        assert_eq!(utf8("p", "é".as_bytes()).unwrap(), "é");
    }
}
