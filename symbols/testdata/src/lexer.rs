pub struct Lexer {
    pos: usize,
}

pub enum Token {
    Ident(String),
    Eof,
}

impl Lexer {
    pub fn next_token(&mut self) -> Token {
        Token::Eof
    }
}

pub const MAX_DEPTH: usize = 32;
