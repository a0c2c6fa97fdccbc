//! A safe event reader over libyaml (`unsafe-libyaml-norway`, the parser inside `serde_norway`).
//!
//! libyaml accepts what cwltool's ruamel.yaml accepts in the places where tree-sitter-yaml is
//! stricter (SPEC §2), so it gives the syntax verdict when tree-sitter reports an error, and
//! the exact tree of such documents. Marks are byte offsets into the input.
use std::ptr::addr_of_mut;

use unsafe_libyaml_norway as unsafe_sys;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarStyle {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

#[derive(Clone, Debug, PartialEq)]
pub enum EventKind {
    StreamStart,
    StreamEnd,
    DocumentStart,
    DocumentEnd,
    Alias(String),
    Scalar {
        anchor: Option<String>,
        tag: Option<String>,
        value: String,
        style: ScalarStyle,
    },
    SequenceStart {
        anchor: Option<String>,
        tag: Option<String>,
        flow: bool,
    },
    SequenceEnd,
    MappingStart {
        anchor: Option<String>,
        tag: Option<String>,
        flow: bool,
    },
    MappingEnd,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub kind: EventKind,
    pub start: usize,
    pub end: usize,
}

/// A libyaml error: its message and the byte offset it points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub message: String,
    /// Where libyaml noticed the problem.
    pub offset: usize,
    /// Where the construct being parsed started (a flow collection's bracket, a quoted
    /// scalar's quote, a simple key), when libyaml names one.
    pub context_offset: Option<usize>,
}

/// Collections nested deeper than this are reported as an error instead of being read.
/// libyaml's scanner rechecks every open flow level for each token, so its time grows with
/// the square of the nesting (50,000 nested `{a: ` took 13 s); no CWL document comes near
/// this depth (serde_yaml and serde_norway stop at 128).
pub const MAX_NESTING: usize = 1_000;

/// Reads every event of `text`, or the first error.
pub fn events(text: &str) -> Result<Vec<Event>, ParseError> {
    let mut out = Vec::new();
    // SAFETY: `read` hands over a live event, initialised by libyaml.
    read(text, |event| out.push(unsafe { convert(event) }))?;
    Ok(out)
}

/// Whether libyaml accepts `text`, or its first error: what [`events`] would return, without
/// copying the events out (a document libyaml rejects, the usual case when it is asked, is
/// read up to its error and no further, and nothing of it is kept).
pub fn verdict(text: &str) -> Result<(), ParseError> {
    read(text, |_| {})
}

/// [`verdict`] on `first` followed by `then`, without joining them.
pub fn verdict_of(first: &str, then: &str) -> Result<(), ParseError> {
    read_by([first, then], CHUNK, |_| {})
}

/// Reads the events of `text` in order, handing each to `each`, up to the stream's end or the
/// first error (nesting deeper than [`MAX_NESTING`] is one).
fn read(text: &str, each: impl FnMut(&unsafe_sys::yaml_event_t)) -> Result<(), ParseError> {
    read_by([text, ""], CHUNK, each)
}

/// [`read`] of `text[0]` followed by `text[1]`, libyaml handed at most `chunk` bytes at a
/// time.
fn read_by(
    text: [&str; 2],
    chunk: usize,
    mut each: impl FnMut(&unsafe_sys::yaml_event_t),
) -> Result<(), ParseError> {
    let mut depth = 0usize;
    // SAFETY: the parser is initialised before use and deleted before returning; the input
    // slice outlives the parser; each event is deleted after `each` has read it.
    unsafe {
        let mut parser = Box::new(std::mem::MaybeUninit::<unsafe_sys::yaml_parser_t>::uninit());
        let parser = addr_of_mut!(*parser.as_mut_ptr());
        if unsafe_sys::yaml_parser_initialize(parser).fail {
            return Err(ParseError {
                message: "libyaml could not allocate a parser".into(),
                offset: 0,
                context_offset: None,
            });
        }
        unsafe_sys::yaml_parser_set_encoding(parser, unsafe_sys::YAML_UTF8_ENCODING);
        let mut input = Chunks {
            rest: text[0].as_bytes(),
            then: text[1].as_bytes(),
            chunk,
        };
        unsafe_sys::yaml_parser_set_input(
            parser,
            read_chunk,
            addr_of_mut!(input).cast::<std::ffi::c_void>(),
        );
        let result = loop {
            let mut event = std::mem::MaybeUninit::<unsafe_sys::yaml_event_t>::uninit();
            let event = event.as_mut_ptr();
            if unsafe_sys::yaml_parser_parse(parser, event).fail {
                break Err(parse_error(parser));
            }
            let (kind, start) = ((*event).type_, (*event).start_mark.index as usize);
            match kind {
                unsafe_sys::YAML_SEQUENCE_START_EVENT | unsafe_sys::YAML_MAPPING_START_EVENT => {
                    depth += 1
                }
                unsafe_sys::YAML_SEQUENCE_END_EVENT | unsafe_sys::YAML_MAPPING_END_EVENT => {
                    depth = depth.saturating_sub(1)
                }
                _ => {}
            }
            if depth > MAX_NESTING {
                unsafe_sys::yaml_event_delete(event);
                break Err(ParseError {
                    message: format!("collections nested more than {MAX_NESTING} levels deep"),
                    offset: start,
                    context_offset: None,
                });
            }
            each(&*event);
            unsafe_sys::yaml_event_delete(event);
            if kind == unsafe_sys::YAML_STREAM_END_EVENT {
                break Ok(());
            }
        };
        unsafe_sys::yaml_parser_delete(parser);
        result
    }
}

/// The most bytes libyaml is handed at a time. Its reader decodes every byte it is handed
/// before it scans on (about 70 MB/s), and a string input hands it 16 KiB at once: a verdict
/// on a text broken in its first lines decoded 16 KiB to find an error a hundred bytes in
/// (0.2 ms of a keystroke that breaks a 500-line tool).
const CHUNK: usize = 1024;

/// The rest of the text being read ([`read_chunk`]).
struct Chunks<'t> {
    rest: &'t [u8],
    /// What follows `rest`.
    then: &'t [u8],
    /// The most bytes handed at a time ([`CHUNK`]; tests compare with other sizes).
    chunk: usize,
}

/// libyaml's read handler over [`Chunks`]: at most its `chunk` bytes per call; 0 bytes at the
/// end of the text.
unsafe fn read_chunk(
    data: *mut std::ffi::c_void,
    buffer: *mut u8,
    size: u64,
    size_read: *mut u64,
) -> i32 {
    // SAFETY: `data` is the `Chunks` that `read` set up, alive while its parser reads;
    // `buffer` has room for `size` bytes, and `size_read` is libyaml's.
    unsafe {
        let input = &mut *data.cast::<Chunks<'_>>();
        if input.rest.is_empty() {
            input.rest = std::mem::take(&mut input.then);
        }
        let n = input
            .rest
            .len()
            .min(input.chunk)
            .min(usize::try_from(size).unwrap_or(usize::MAX));
        std::ptr::copy_nonoverlapping(input.rest.as_ptr(), buffer, n);
        input.rest = &input.rest[n..];
        *size_read = n as u64;
    }
    1
}

unsafe fn c_string(ptr: *const u8) -> Option<String> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: libyaml strings are NUL-terminated.
    let cstr = unsafe { std::ffi::CStr::from_ptr(ptr.cast()) };
    Some(String::from_utf8_lossy(cstr.to_bytes()).into_owned())
}

unsafe fn parse_error(parser: *mut unsafe_sys::yaml_parser_t) -> ParseError {
    unsafe {
        let parser = &*parser;
        let problem = c_string(parser.problem.cast()).unwrap_or_else(|| "invalid YAML".into());
        let context = c_string(parser.context.cast());
        let context_offset = context.as_ref().map(|_| parser.context_mark.index as usize);
        let message = match context {
            Some(context) => format!("{context}: {problem}"),
            None => problem,
        };
        ParseError {
            message,
            offset: parser.problem_mark.index as usize,
            context_offset,
        }
    }
}

unsafe fn convert(event: &unsafe_sys::yaml_event_t) -> Event {
    let start = event.start_mark.index as usize;
    let end = event.end_mark.index as usize;
    let kind = unsafe {
        match event.type_ {
            unsafe_sys::YAML_STREAM_START_EVENT => EventKind::StreamStart,
            unsafe_sys::YAML_DOCUMENT_START_EVENT => EventKind::DocumentStart,
            unsafe_sys::YAML_DOCUMENT_END_EVENT => EventKind::DocumentEnd,
            unsafe_sys::YAML_ALIAS_EVENT => {
                EventKind::Alias(c_string(event.data.alias.anchor).unwrap_or_default())
            }
            unsafe_sys::YAML_SCALAR_EVENT => {
                let data = &event.data.scalar;
                let bytes = std::slice::from_raw_parts(data.value, data.length as usize);
                EventKind::Scalar {
                    anchor: c_string(data.anchor),
                    tag: c_string(data.tag),
                    value: String::from_utf8_lossy(bytes).into_owned(),
                    style: match data.style {
                        unsafe_sys::YAML_SINGLE_QUOTED_SCALAR_STYLE => ScalarStyle::SingleQuoted,
                        unsafe_sys::YAML_DOUBLE_QUOTED_SCALAR_STYLE => ScalarStyle::DoubleQuoted,
                        unsafe_sys::YAML_LITERAL_SCALAR_STYLE => ScalarStyle::Literal,
                        unsafe_sys::YAML_FOLDED_SCALAR_STYLE => ScalarStyle::Folded,
                        _ => ScalarStyle::Plain,
                    },
                }
            }
            unsafe_sys::YAML_SEQUENCE_START_EVENT => {
                let data = &event.data.sequence_start;
                EventKind::SequenceStart {
                    anchor: c_string(data.anchor),
                    tag: c_string(data.tag),
                    flow: data.style == unsafe_sys::YAML_FLOW_SEQUENCE_STYLE,
                }
            }
            unsafe_sys::YAML_SEQUENCE_END_EVENT => EventKind::SequenceEnd,
            unsafe_sys::YAML_MAPPING_START_EVENT => {
                let data = &event.data.mapping_start;
                EventKind::MappingStart {
                    anchor: c_string(data.anchor),
                    tag: c_string(data.tag),
                    flow: data.style == unsafe_sys::YAML_FLOW_MAPPING_STYLE,
                }
            }
            unsafe_sys::YAML_MAPPING_END_EVENT => EventKind::MappingEnd,
            _ => EventKind::StreamEnd,
        }
    };
    Event { kind, start, end }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_events_with_byte_offsets() {
        let text = "é: [1, 'two']\n";
        let events = events(text).unwrap();
        let scalars: Vec<_> = events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Scalar { value, style, .. } => Some((value.clone(), *style, e.start)),
                _ => None,
            })
            .collect();
        assert_eq!(
            scalars,
            vec![
                ("é".to_string(), ScalarStyle::Plain, 0),
                ("1".to_string(), ScalarStyle::Plain, 5),
                ("two".to_string(), ScalarStyle::SingleQuoted, 8)
            ]
        );
    }

    #[test]
    fn reports_the_first_error_with_its_offset() {
        let text = "a: b: c\n";
        let err = events(text).unwrap_err();
        assert!(
            err.message.contains("mapping values are not allowed"),
            "{err:?}"
        );
        assert_eq!(err.offset, 4);
    }

    #[test]
    fn accepts_a_quoted_scalar_continued_at_the_key_column() {
        // The shape of genome__analysis-workflows/.../star_fusion_detect.cwl (SPEC §2).
        let text = "arguments:\n  - valueFrom: '${\n    return 1;\n  }'\n";
        assert!(events(text).is_ok());
    }

    /// The verdict alone is what reading every event says: the same acceptance, the same
    /// first error (message, offset, context), nesting too deep included.
    #[test]
    fn the_verdict_is_what_the_events_say() {
        let deep = format!(
            "{}1{}",
            "[".repeat(MAX_NESTING + 1),
            "]".repeat(MAX_NESTING + 1)
        );
        let texts = [
            "a: b: c\n",
            "arguments:\n  - valueFrom: '${\n    return 1;\n  }'\n",
            "inputs:\n  a:\n    type: int\n      position: 1\n   b: 2\n",
            "title: [unclosed\nlabel: after\n",
            "key: \"unclosed\n",
            "a: 1\n---\nb: 2\n",
            "",
            &deep,
        ];
        for text in texts {
            assert_eq!(verdict(text), events(text).map(|_| ()), "{text:?}");
        }
        assert!(verdict(&deep).unwrap_err().message.contains("nested"));
        assert!(verdict("a: b: c\n").is_err() && verdict("a: 1\n").is_ok());
    }

    /// Handed in chunks, libyaml reads what it reads handed the whole text (at most its
    /// 16 KiB raw buffer at a time): the same events and offsets, the same first error, with
    /// multi-byte characters across chunk boundaries and errors far past the first chunk.
    #[test]
    fn chunks_read_as_the_whole_text() {
        let all = |text: &str, chunk: usize| {
            let mut out = Vec::new();
            // SAFETY: `read_by` hands over a live event, initialised by libyaml.
            let end = read_by([text, ""], chunk, |e| out.push(unsafe { convert(e) }));
            (out, end)
        };
        let mut long = String::from("inputs:\n");
        for i in 0..400 {
            long.push_str(&format!(
                "  in_é{i}:\n    doc: \"ü {i} 🙂\"\n    type: [\"null\", int]\n"
            ));
        }
        let mut texts = vec![long.clone()];
        for at in [3, 1020, 1024, 5000, 17_000, long.len() - 10] {
            let mut at = at.min(long.len() - 1);
            while !long.is_char_boundary(at) {
                at += 1;
            }
            for insert in [" ", "]", "\"", ": x: y", "\t"] {
                texts.push(format!("{}{insert}{}", &long[..at], &long[at..]));
            }
        }
        let mut rejected = 0;
        for text in &texts {
            let whole = all(text, usize::MAX);
            rejected += usize::from(whole.1.is_err());
            for chunk in [1, 7, CHUNK] {
                assert_eq!(all(text, chunk), whole, "chunk {chunk}");
            }
            // In two parts, split anywhere.
            let mut at = text.len() / 3;
            while !text.is_char_boundary(at) {
                at += 1;
            }
            assert_eq!(
                verdict_of(&text[..at], &text[at..]),
                whole.1,
                "split at {at}"
            );
        }
        assert!(rejected >= 8, "{rejected} rejected");
    }
}
