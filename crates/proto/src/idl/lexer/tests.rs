use super::*;

fn toks(src: &str) -> Vec<Tok> {
    let mut l = Lexer::new(src, Arc::from("t.idl"));
    let mut out = Vec::new();
    loop {
        let t = l.next_token().unwrap();
        if t.tok == Tok::Eof {
            return out;
        }
        out.push(t.tok);
    }
}

#[test]
fn literals_and_operators_lex() {
    assert_eq!(
        toks("0x1F 017 42 1.5e3 .5 'a' '\\n' L\"w\" \"s\\x41\" :: >> <<"),
        [
            Tok::Int(31),
            Tok::Int(15),
            Tok::Int(42),
            Tok::Float(1500.0),
            Tok::Float(0.5),
            Tok::Char('a'),
            Tok::Char('\n'),
            Tok::Str("w".into()),
            Tok::Str("sA".into()),
            Tok::Punct(Punct::ColonColon),
            Tok::Punct(Punct::Shr),
            Tok::Punct(Punct::Shl),
        ]
    );
}

#[test]
fn directives_only_at_line_start() {
    assert_eq!(
        toks("  #define X 1 \\\n 2\nX"),
        [
            Tok::Directive("define X 1   2".into()),
            Tok::Ident("X".into())
        ]
    );
    let mut l = Lexer::new("a #b", Arc::from("t.idl"));
    l.next_token().unwrap();
    assert_eq!(
        l.next_token().unwrap_err().to_string(),
        "t.idl:1:3: '#' must start a line"
    );
}

#[test]
fn positions_count_characters() {
    let mut l = Lexer::new("/* é */\n\tab", Arc::from("t.idl"));
    let t = l.next_token().unwrap();
    assert_eq!((t.loc.line, t.loc.col), (2, 2));
}
