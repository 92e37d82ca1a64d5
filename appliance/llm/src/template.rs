//! Chat prompts rendered from the model's own `tokenizer.chat_template` (Jinja, via minijinja),
//! with the settings transformers' `apply_chat_template` uses (trim_blocks, lstrip_blocks).

use minijinja::{context, Environment, Error, ErrorKind};
use serde::Serialize;

use crate::LlmError;

/// One chat message.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// The text.
    pub content: String,
}

impl Message {
    /// A message with `role`.
    pub fn new(role: &str, content: impl Into<String>) -> Self {
        Message {
            role: role.to_string(),
            content: content.into(),
        }
    }
}

/// A compiled chat template.
pub struct ChatTemplate {
    env: Environment<'static>,
    bos: String,
    eos: String,
}

impl std::fmt::Debug for ChatTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ChatTemplate")
    }
}

const NAME: &str = "chat";

impl ChatTemplate {
    /// Compiles `source`; `bos`/`eos` are the token texts the template may refer to.
    pub fn new(source: &str, bos: &str, eos: &str) -> Result<Self, LlmError> {
        let mut env = Environment::new();
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_function("raise_exception", |msg: String| -> Result<String, Error> {
            Err(Error::new(ErrorKind::InvalidOperation, msg))
        });
        env.add_function("strftime_now", |_fmt: String| -> String {
            // Templates that print today's date get a fixed one: same question, same prompt.
            "01 Jan 2026".to_string()
        });
        env.add_template_owned(NAME, source.to_string())
            .map_err(|e| LlmError::Template(e.to_string()))?;
        Ok(ChatTemplate {
            env,
            bos: bos.to_string(),
            eos: eos.to_string(),
        })
    }

    /// Renders a conversation; `add_generation_prompt` opens the assistant's turn.
    pub fn render(
        &self,
        messages: &[Message],
        add_generation_prompt: bool,
    ) -> Result<String, LlmError> {
        let t = self
            .env
            .get_template(NAME)
            .map_err(|e| LlmError::Template(e.to_string()))?;
        t.render(context! {
            messages => messages,
            add_generation_prompt => add_generation_prompt,
            bos_token => self.bos,
            eos_token => self.eos,
        })
        .map_err(|e| LlmError::Template(e.to_string()))
    }

    /// Renders a system instruction and a user message; templates without a system role get the
    /// instruction at the head of the user message.
    pub fn render_instruction(&self, system: &str, user: &str) -> Result<String, LlmError> {
        match self.render(
            &[Message::new("system", system), Message::new("user", user)],
            true,
        ) {
            Ok(s) => Ok(s),
            Err(_) => self.render(&[Message::new("user", format!("{system}\n\n{user}"))], true),
        }
    }

    /// The text a template writes after an assistant message ends (`<|im_end|>\n`, `<|eot_id|>`...).
    pub fn end_of_turn_text(&self) -> Result<String, LlmError> {
        const MARK: &str = "\u{1}MITRA-END\u{1}";
        let s = self.render(
            &[Message::new("user", "q"), Message::new("assistant", MARK)],
            false,
        )?;
        Ok(s.split(MARK).nth(1).unwrap_or_default().to_string())
    }
}
