//! The answer pipeline on one model: relevance of each passage, the answer, then support of
//! each sentence by the passages it cites; each step's prompt reuses the cached prefix it shares
//! with the one before.

use std::time::Instant;

use sha2::{Digest, Sha256};

use crate::cells;
use crate::conditions;
use crate::counts;
use crate::engine::{Engine, Params, Stats};
use crate::focus;
use crate::glossary;
use crate::grounding::{self, Budget, Passage};
use crate::kinds;
use crate::locate;
use crate::qualifiers;
use crate::terms;
use crate::topic;
use crate::updates;
use crate::LlmError;

/// Which checks run, and their thresholds (log-odds of "Yes" over "No").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Checks {
    /// Judge each passage before generating; abstain when none gives the requested fact.
    pub relevance: bool,
    /// A passage is relevant at or above this log-odds.
    pub min_relevance: f32,
    /// Once a passage reaches `min_relevance`, those at or above this log-odds are shown too
    /// (`None`, or a value above `min_relevance`: `min_relevance`).
    pub min_shown_relevance: Option<f32>,
    /// The judge reads this many paragraphs of each passage, those sharing most words with
    /// the question ([`locate::window`]; 0: the whole passage).
    pub relevance_paragraphs: usize,
    /// The answer step (and the support step after it) reads this many paragraphs of each
    /// relevant passage, those sharing most words with the question ([`locate::window`]; 0:
    /// the whole passage).
    pub answer_paragraphs: usize,
    /// Passages judged first (`None`: all given); the rest of those given are judged only
    /// when none of these is relevant, and are not used otherwise.
    pub first_look: Option<usize>,
    /// Judge each answer sentence against the passages it cites; drop unsupported ones.
    pub support: bool,
    /// A sentence is supported at or above this log-odds.
    pub min_support: f32,
    /// An answer is shown only when one of its kept sentences is supported at or above this
    /// log-odds (`None`: any kept sentence will do).
    pub min_answer_support: Option<f32>,
}

impl Checks {
    /// The passages to answer from, given their relevance `scores`: `None` when none reaches
    /// `min_relevance`, else those at or above it (or at or above a lower
    /// `min_shown_relevance`), most relevant first, ties in their order.
    pub fn shown(&self, scores: &[f32]) -> Option<Vec<usize>> {
        if scores.iter().all(|&s| s < self.min_relevance) {
            return None;
        }
        let bar = self
            .min_shown_relevance
            .map_or(self.min_relevance, |b| b.min(self.min_relevance));
        let mut shown: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] >= bar).collect();
        shown.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        Some(shown)
    }
}

/// Why the pipeline gave no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No passage fits the prompt or was given.
    NoEvidence,
    /// The relevance step found no passage giving the requested fact.
    NotRelevant,
    /// The question names an identifier (DeepTau, HLT_IsoMu24) that no given passage
    /// mentions ([`terms::unmentioned`]), or a year, bin or point that no passage judged
    /// relevant writes ([`conditions::unwritten`]); [`Outcome::unmentioned`] lists them.
    Unmentioned,
    /// The model replied with the abstention.
    Model,
    /// No sentence cites a given passage.
    Uncited,
    /// No cited sentence is supported by the passages it cites (or none well enough: below
    /// `min_answer_support`).
    Unsupported,
    /// The answer does not answer: its sentences only restate the question or speak of another
    /// subject ([`Verdict::OffTopic`]), or the question asks for a quantity (or a sentence
    /// giving a value was dropped for its qualifier or noun) and no kept sentence gives a
    /// number, or none of the kind asked (a luminosity for a rate).
    Unanswered,
}

/// What the support step decided of a sentence, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Not judged: the support step did not run.
    Unjudged,
    /// Dropped without a judge: it states nothing the question does not.
    Restates,
    /// Dropped without a judge: it gives a number no shown passage writes (restated: one the
    /// passage stating the change does not write).
    Unwritten,
    /// Dropped without a judge: the passages write its value only beside another qualifier
    /// than the question's ([`qualifiers::other_qualifier`]).
    OtherQualifier,
    /// Dropped without a judge: it writes a number of the passages with another noun than
    /// they write it with ("14 trees" for "14 input variables", [`counts::other_noun`]), or
    /// gives a count of a table for a ratio ([`counts::miscounted`]).
    OtherNoun,
    /// Dropped without a judge: the passages write its value only in other rows or columns
    /// of a table than the place the question describes ([`cells::other_cell`]).
    OtherCell,
    /// Judged, then dropped with every other sentence of the answer: none that the judge kept
    /// names anything the question names, nor does the segment of the passages stating it
    /// ([`topic::off_topic`]).
    OffTopic,
    /// Judged and kept.
    Supported,
    /// Judged and dropped.
    Unsupported,
}

impl Verdict {
    /// The verdict's name in traces (snake case).
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Unjudged => "unjudged",
            Verdict::Restates => "restates",
            Verdict::Unwritten => "unwritten_number",
            Verdict::OtherQualifier => "other_qualifier",
            Verdict::OtherNoun => "other_noun",
            Verdict::OtherCell => "other_cell",
            Verdict::OffTopic => "off_topic",
            Verdict::Supported => "supported",
            Verdict::Unsupported => "unsupported",
        }
    }
}

/// One sentence of the model's answer, judged.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// The sentence as the model wrote it (a kept sentence Mitra cited anew cites its passage;
    /// a restated one gives the new values).
    pub text: String,
    /// The passages (0-based, into the given ones) it cites.
    pub cites: Vec<usize>,
    /// Support log-odds against the cited passages (`None`: not judged: the support step did
    /// not run, or the sentence has a number the passages do not write).
    pub support: Option<f32>,
    /// Mitra chose what it is judged against: it cited nothing (the shown passage sharing
    /// most words), or cited passages that do not write its numbers (the most relevant shown
    /// passage that does); `cites` is that passage when it is supported there.
    pub attributed: bool,
    /// It gave a value a shown passage says was changed, and was restated with the new one and
    /// judged against that passage ([`updates::restate`]).
    pub restated: bool,
    /// What the support step decided, and why ([`Judged::kept`] follows from it).
    pub verdict: Verdict,
}

impl Judged {
    /// Kept in the answer: supported, or not judged because the support step did not run.
    pub fn kept(&self) -> bool {
        matches!(self.verdict, Verdict::Supported | Verdict::Unjudged)
    }
}

/// What the pipeline did and found, step by step.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// Passages used: a prefix of the given ones that fits the prompt, cut to length; with a
    /// first look, its passages, and the rest only when the second look ran.
    pub used: usize,
    /// Relevance log-odds of each used passage (empty when the step did not run).
    pub relevance: Vec<f32>,
    /// The question as the answer step reads it (else, when no passage was shown, as the
    /// passages were cut for), when it differs from the one asked: with the label of each
    /// table place it describes by rank ([`cells::annotate`]) and the spellings of the
    /// passages ([`glossary::read`]).
    pub asked: Option<String>,
    /// Used passages given to the answer step (0-based; its excerpt `[n]` is `shown[n - 1]`).
    pub shown: Vec<usize>,
    /// The text of each shown passage as the answer and support steps read it (cut to the
    /// budget, windowed): what a trace records for an offline replay of the checks.
    pub shown_text: Vec<String>,
    /// The model's answer as generated ("" when no generation ran).
    pub raw: String,
    /// Its sentences, judged.
    pub sentences: Vec<Judged>,
    /// Why there is no answer, if so.
    pub refusal: Option<Refusal>,
    /// The question's identifiers no given passage mentions, or its numbers no shown passage
    /// writes (with the relevance step only).
    pub unmentioned: Vec<String>,
    /// Tokens fed (new, after prefix reuse) and milliseconds of the relevance step.
    pub relevance_cost: (usize, f32),
    /// Tokens fed and milliseconds of the support step.
    pub support_cost: (usize, f32),
    /// The generation's counts and timings (zero when it did not run).
    pub stats: Option<Stats>,
    /// sha256 (hex) of the token ids of every prompt before the answer's: the relevance
    /// prompts and the answer prompt ("" when none was rendered). Equal inputs, code and model
    /// give equal prompts; a replay compares it.
    pub prompt_sha256: String,
}

impl Outcome {
    /// Used passages the relevance step let through to the answer step ([`Checks::shown`]),
    /// most relevant first: [`Outcome::shown`] when the step ran, else none.
    pub fn relevant(&self) -> &[usize] {
        if self.relevance.is_empty() {
            &[]
        } else {
            &self.shown
        }
    }

    /// The kept sentences, joined: the answer shown.
    pub fn answer(&self) -> String {
        self.sentences
            .iter()
            .filter(|s| s.kept())
            .map(|s| s.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Sentences removed as unsupported.
    pub fn unsupported(&self) -> usize {
        self.sentences.iter().filter(|s| !s.kept()).count()
    }
}

/// A request's hooks: cancellation and the streamed answer text (false: the caller left).
pub struct Hooks<'a> {
    /// Polled between forward passes.
    pub cancelled: &'a dyn Fn() -> bool,
    /// Receives each new piece of the generated answer.
    pub on_text: &'a mut dyn FnMut(&str) -> bool,
}

/// Answers `question` from `passages` (rank order) with the checks `checks`; `known` holds
/// relevance scores the LLM reranker already gave these passages (in order), if it ran.
#[allow(clippy::too_many_arguments)]
pub fn answer(
    engine: &mut Engine,
    question: &str,
    passages: &[Passage],
    budget: Budget,
    params: &Params,
    checks: Checks,
    known: Option<&[f32]>,
    hooks: Hooks<'_>,
) -> Result<Outcome, LlmError> {
    let mut prompts = Sha256::new();
    // The checks read a fraction typed as one character as the model steps do: "a=¼" names
    // the table row of "a = 0.25".
    let question = &glossary::decimals(question);
    let mut out = steps(
        engine,
        question,
        passages,
        budget,
        params,
        checks,
        known,
        hooks,
        &mut prompts,
    )?;
    if out.relevance.is_empty() && out.stats.is_none() && out.raw.is_empty() {
        return Ok(out);
    }
    out.prompt_sha256 = hex::encode(prompts.finalize());
    Ok(out)
}

/// Adds one prompt's token ids to the digest of the prompts.
fn digest(prompts: &mut Sha256, ids: &[u32]) {
    prompts.update((ids.len() as u64).to_le_bytes());
    for id in ids {
        prompts.update(id.to_le_bytes());
    }
}

/// The relevance judge's log-odds of "Yes" over "No" for each passage as given (its window of
/// `paragraphs`, 0: whole), one prompt each (passage first, then the question: their shared
/// beginning is the system prompt, which the engine's prefix cache computes once); `on_prompt`
/// sees each prompt's ids. The judge of a passage reads `annotated` ([`annotated`]) in that
/// passage's own spellings ([`as_read`] of it alone: "graviton (spin-2)" for the
/// table that writes only "spin-2", though the introduction beside it writes both). A score
/// in `known` (the LLM reranker's, same judge, same cut passage, same window) is taken without
/// judging again. Returns the scores and the tokens fed after reused prefixes.
fn judge_all(
    engine: &mut Engine,
    annotated: &str,
    passages: &[Passage],
    paragraphs: usize,
    known: Option<&[f32]>,
    cancelled: &dyn Fn() -> bool,
    on_prompt: &mut dyn FnMut(&[u32]),
) -> Result<(Vec<f32>, usize), LlmError> {
    let mut scores = Vec::with_capacity(passages.len());
    let mut fed = 0;
    for (i, p) in passages.iter().enumerate() {
        let question = &as_read(annotated, std::slice::from_ref(p));
        let read = Passage {
            text: locate::window(question, &p.text, paragraphs),
            ..p.clone()
        };
        let ids = grounding::render(
            engine,
            grounding::JUDGE,
            &grounding::relevance_message(engine, question, &read),
        )?;
        on_prompt(&ids);
        match known.and_then(|k| k.get(i)) {
            Some(&v) => scores.push(v),
            None => {
                scores.push(engine.yes_no(&ids, cancelled)?);
                fed += engine.last_fed();
            }
        }
    }
    Ok((scores, fed))
}

/// The texts of `passages`.
fn texts<P: std::borrow::Borrow<Passage>>(passages: &[P]) -> Vec<&str> {
    passages.iter().map(|p| p.borrow().text.as_str()).collect()
}

/// The question as the answer and support steps read it: `annotated` ([`annotated`]) with an
/// abbreviation or spelling the passages do not write followed by the one they do
/// ("weak-boson-fusion (VBF)", [`glossary::gloss`]), and an energy in the unit the passages
/// write it in ("1-TeV (1000 GeV)", [`glossary::energies`]). (The relevance judge reads each
/// passage beside the question glossed against that passage alone, [`judge_all`].)
fn as_read<P: std::borrow::Borrow<Passage>>(annotated: &str, passages: &[P]) -> String {
    glossary::read(annotated, &texts(passages))
}

/// `question` with a table place it describes by rank ("third pt bin") named by its label,
/// read from the passages' whole tables ("third pt bin (25–35)", [`cells::annotate`]). A
/// fraction typed as one character is already in decimals ([`glossary::decimals`], read once
/// by the caller, as the checks read it too).
fn annotated(question: &str, passages: &[Passage]) -> String {
    cells::annotate(question, &texts(passages))
}

/// The LLM reranker: each passage, cut to `max_passage_tokens` at a sentence end as the answer
/// pipeline cuts it, scored by the relevance judge on its window of `paragraphs` (log
/// P("Yes") − log P("No") for the next token after the judging prompt in the model's chat
/// template). Higher is more relevant.
pub fn rerank(
    engine: &mut Engine,
    question: &str,
    passages: &[Passage],
    max_passage_tokens: usize,
    paragraphs: usize,
    cancelled: &dyn Fn() -> bool,
) -> Result<Vec<f32>, LlmError> {
    let annotated = &annotated(&glossary::decimals(question), passages);
    let question = &as_read(annotated, passages);
    let cut: Vec<Passage> = passages
        .iter()
        .map(|p| {
            Ok(Passage {
                text: grounding::cut(engine, question, &p.text, max_passage_tokens)?,
                ..p.clone()
            })
        })
        .collect::<Result<_, LlmError>>()?;
    Ok(judge_all(
        engine,
        annotated,
        &cut,
        paragraphs,
        None,
        cancelled,
        &mut |_| {},
    )?
    .0)
}

#[allow(clippy::too_many_arguments)]
fn steps(
    engine: &mut Engine,
    question: &str,
    passages: &[Passage],
    budget: Budget,
    params: &Params,
    checks: Checks,
    known: Option<&[f32]>,
    hooks: Hooks<'_>,
    prompts: &mut Sha256,
) -> Result<Outcome, LlmError> {
    engine.forget();
    let mut out = Outcome::default();
    // The question the passages are cut for ([`as_read`]; the judge and the answer step read
    // it glossed against the passages they read); the checks read the question as asked.
    let annotated = annotated(question, passages);
    let asked = as_read(&annotated, passages);
    out.asked = (asked != question).then(|| asked.clone());
    // With a first look, only its passages are fitted now; the rest are the second look's.
    let first = checks
        .first_look
        .map_or(passages.len(), |n| n.max(1))
        .min(passages.len());
    let mut used = grounding::fit(engine, &asked, &passages[..first], budget)?;
    out.used = used.len();
    if used.is_empty() {
        out.refusal = Some(Refusal::NoEvidence);
        return Ok(out);
    }

    // 1. Relevance: one yes/no per passage, each on its own prompt (scores a reranker gave
    //    with this same judge are taken as they are). When none of the first look is
    //    relevant, the passages after it (fitted on their own: only they can be shown then)
    //    are judged too, a second look.
    let given: Vec<usize> = if checks.relevance {
        // A question about a name none of the passages writes is not answered by them.
        out.unmentioned = terms::unmentioned(question, passages.iter().map(|p| p.text.as_str()));
        if !out.unmentioned.is_empty() {
            out.refusal = Some(Refusal::Unmentioned);
            return Ok(out);
        }
        let t = Instant::now();
        let (mut scores, mut fed) = judge_all(
            engine,
            &annotated,
            &used,
            checks.relevance_paragraphs,
            known,
            hooks.cancelled,
            &mut |ids| digest(prompts, ids),
        )?;
        if first < passages.len() && scores.iter().all(|&s| s < checks.min_relevance) {
            let more = grounding::fit(engine, &asked, &passages[used.len()..], budget)?;
            let (more_scores, more_fed) = judge_all(
                engine,
                &annotated,
                &more,
                checks.relevance_paragraphs,
                known.map(|k| k.get(used.len()..).unwrap_or_default()),
                hooks.cancelled,
                &mut |ids| digest(prompts, ids),
            )?;
            scores.extend(more_scores);
            fed += more_fed;
            used.extend(more);
            out.used = used.len();
        }
        out.relevance = scores;
        out.relevance_cost.0 += fed;
        out.relevance_cost.1 = t.elapsed().as_secs_f32() * 1000.0;
        let Some(mut shown) = checks.shown(&out.relevance) else {
            out.refusal = Some(Refusal::NotRelevant);
            return Ok(out);
        };
        // A passage saying a shown value was changed is shown beside it, as the paragraph
        // saying so, for the value now.
        for (j, paragraph) in updates::updating(question, passages, &used, &shown) {
            used[j].text = paragraph;
            shown.push(j);
        }
        shown
    } else {
        (0..used.len()).collect()
    };

    // The answer and support steps read the question in the spellings of the passages shown
    // (a table writing only "spin-2" beside an introduction, not shown, writing "graviton").
    let asked = as_read(
        &annotated,
        &given.iter().map(|&i| &used[i]).collect::<Vec<_>>(),
    );
    out.asked = (asked != question).then(|| asked.clone());

    // 2. The answer, from the passages shown (numbered 1.., most relevant first), each
    //    read as its window when asked (the support step then judges against the same text).
    if checks.answer_paragraphs > 0 {
        for &i in &given {
            used[i].text = locate::window(&asked, &used[i].text, checks.answer_paragraphs);
        }
    }
    out.shown = given.clone();
    let shown: Vec<Passage> = given.iter().map(|&i| used[i].clone()).collect();
    out.shown_text = shown.iter().map(|p| p.text.clone()).collect();
    // A question naming a year, bin or point that none of the shown passages writes (each with
    // its title line, as the answer step shows it) asks about a case they do not give.
    if checks.relevance {
        let read: Vec<String> = shown
            .iter()
            .map(|p| format!("{}\n{}", grounding::title_line(p, engine), p.text))
            .collect();
        let read: Vec<&str> = read.iter().map(String::as_str).collect();
        out.unmentioned = conditions::unwritten(question, &read);
        if !out.unmentioned.is_empty() {
            out.refusal = Some(Refusal::Unmentioned);
            return Ok(out);
        }
    }
    let ids = grounding::render(
        engine,
        grounding::SYSTEM,
        &grounding::answer_message(engine, &asked, &shown),
    )?;
    digest(prompts, &ids);
    let (raw, stats) = engine.generate(&ids, params, hooks.cancelled, hooks.on_text)?;
    out.raw = raw;
    out.stats = Some(stats);
    if grounding::is_abstention(&out.raw) {
        out.refusal = Some(Refusal::Model);
        return Ok(out);
    }
    // Citations are numbers of the shown passages; kept as indexes into the used ones.
    let numbers: Vec<String> = (1..=shown.len()).map(|i| i.to_string()).collect();
    let mut split = grounding::sentences(&out.raw);
    for s in &split {
        let cites: Vec<usize> = grounding::check(&s.text, &numbers)
            .citations
            .iter()
            .filter_map(|c| c.parse::<usize>().ok())
            .filter_map(|n| given.get(n - 1).copied())
            .collect();
        out.sentences.push(Judged {
            text: s.text.clone(),
            cites,
            support: None,
            attributed: false,
            restated: false,
            verdict: Verdict::Unjudged,
        });
    }
    // Without the support step, a sentence citing nothing stands on the passages the answer
    // cites elsewhere, and an answer citing nothing is uncited.
    let cited_anywhere: Vec<usize> = {
        let mut v: Vec<usize> = out.sentences.iter().flat_map(|s| s.cites.clone()).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    if !checks.support {
        if cited_anywhere.is_empty() {
            out.refusal = Some(Refusal::Uncited);
        }
        return Ok(out);
    }

    // 3. Support: each sentence against the passages it cites and the question (passages
    //    first, so sentences citing the same ones share the beginning of their prompts). A
    //    sentence citing nothing is judged against the shown passage sharing most words with
    //    it, and cites that passage when it is supported there. A sentence with a number its
    //    cited passages do not write is judged against the most relevant shown passage that
    //    writes all its numbers, and is removed without a judgment when none does, or when
    //    the passages write its numbers only beside another qualifier than the question's,
    //    or with another noun than the sentence's.
    //    A sentence giving a value a shown passage says was changed is restated with the new
    //    value and judged against that passage.
    let t = Instant::now();
    let shown_refs: Vec<&Passage> = shown.iter().collect();
    // Which sentences name nothing the question names.
    let mut off_topic = vec![false; out.sentences.len()];
    for (i, (s, claim)) in out.sentences.iter_mut().zip(split.iter_mut()).enumerate() {
        // A sentence stating nothing the question does not is no answer, and needs no judge.
        if focus::restates(question, &claim.claim) {
            s.verdict = Verdict::Restates;
            continue;
        }
        let first = if s.cites.is_empty() {
            s.attributed = true;
            vec![given[grounding::closest(&claim.claim, &shown)]]
        } else {
            s.cites.clone()
        };
        // A number the cited passages do not write: judged against the most relevant other
        // shown passage that writes them all (small models miscount excerpt numbers), or not
        // shown, without a judge, when none does.
        let Some((mut against, mut recited)) =
            numbers_written_in(&claim.claim, question, first, &given, &used)
        else {
            s.verdict = Verdict::Unwritten;
            continue;
        };
        // A value a shown passage says was changed ("widened from A to B"): the new value,
        // from that passage.
        let was: Vec<&Passage> = against.iter().map(|&i| &used[i]).collect();
        if let Some(r) = updates::restate(question, &s.text, &claim.claim, &was, &shown_refs) {
            s.text = r.text;
            claim.claim = r.claim;
            against = vec![given[r.passage]];
            recited = Some(r.passage + 1);
            s.restated = true;
            // Restated, it must stand on that passage's numbers alone.
            if !grounding::unwritten_numbers(&claim.claim, question, &[shown_refs[r.passage]])
                .is_empty()
            {
                s.verdict = Verdict::Unwritten;
                continue;
            }
        }
        s.attributed |= recited.is_some();
        let cited: Vec<&Passage> = against.iter().map(|&i| &used[i]).collect();
        // A value the passages write only beside another qualifier than the question's (the
        // observed limit for the expected one): not shown, without a judge.
        if qualifiers::other_qualifier(question, &claim.claim, &cited) {
            s.verdict = Verdict::OtherQualifier;
            continue;
        }
        // A number the passages count one thing with, given for another: not shown.
        if counts::miscounted(question, &claim.claim, &cited) {
            s.verdict = Verdict::OtherNoun;
            continue;
        }
        // A value of a table row or column beside the one the question describes: not shown.
        let whole: Vec<&Passage> = against.iter().map(|&i| &passages[i]).collect();
        if cells::other_cell(question, &claim.claim, &texts(&whole)) {
            s.verdict = Verdict::OtherCell;
            continue;
        }
        off_topic[i] = topic::off_topic(question, &claim.claim, &texts(&cited));
        let ids = grounding::render(
            engine,
            grounding::JUDGE,
            &grounding::support_message(engine, &asked, &claim.claim, &cited),
        )?;
        let v = engine.yes_no(&ids, hooks.cancelled)?;
        out.support_cost.0 += engine.last_fed();
        s.support = Some(v);
        s.verdict = if v >= checks.min_support {
            Verdict::Supported
        } else {
            Verdict::Unsupported
        };
        if s.kept() {
            s.cites = against;
            if let Some(n) = recited {
                s.text = grounding::recite(&s.text, n);
            }
        }
    }
    out.support_cost.1 = t.elapsed().as_secs_f32() * 1000.0;
    // An answer none of whose kept sentences speaks of what the question asks is a true
    // statement on another subject ("the soft-drop mass window is 105–210 GeV" for a charge
    // asymmetry): dropped whole. Beside one that does, such sentences are its context.
    let kept: Vec<usize> = (0..off_topic.len())
        .filter(|&i| out.sentences[i].kept())
        .collect();
    if !kept.is_empty() && kept.iter().all(|&i| off_topic[i]) {
        for i in kept {
            out.sentences[i].verdict = Verdict::OffTopic;
        }
    }
    out.refusal = answer_refusal(question, &out.sentences, &split, checks);
    Ok(out)
}

/// The passages a sentence is judged against: `first` (indexes into `used`) when they write
/// every number `claim` asserts (those `question` writes are restated, not asserted), else
/// the most relevant shown passage (`given`, in order) that does, with its excerpt number;
/// `None` when none does.
fn numbers_written_in(
    claim: &str,
    question: &str,
    first: Vec<usize>,
    given: &[usize],
    used: &[Passage],
) -> Option<(Vec<usize>, Option<usize>)> {
    let writes_all = |at: &[usize]| {
        let cited: Vec<&Passage> = at.iter().map(|&i| &used[i]).collect();
        grounding::unwritten_numbers(claim, question, &cited).is_empty()
    };
    if writes_all(&first) {
        return Some((first, None));
    }
    given
        .iter()
        .position(|&i| !first.contains(&i) && writes_all(&[i]))
        .map(|k| (vec![given[k]], Some(k + 1)))
}

/// Why the judged sentences make no answer, if they do not: none kept and cited (all of them
/// restating the question or off its subject, [`Verdict::OffTopic`]: unanswered; else
/// unsupported), none supported at `min_answer_support`, or a quantity asked (or a sentence
/// giving a value dropped for its qualifier or noun) and no number given, or none of the kind
/// asked ([`kinds::other_kind`]).
fn answer_refusal(
    question: &str,
    sentences: &[Judged],
    split: &[grounding::Sentence],
    checks: Checks,
) -> Option<Refusal> {
    let kept: Vec<(&Judged, &grounding::Sentence)> = sentences
        .iter()
        .zip(split)
        .filter(|(s, _)| s.kept() && !s.cites.is_empty())
        .collect();
    if kept.is_empty() {
        // What the judge supported spoke of something else, or nothing stated more than the
        // question: no answer to it (an unsupported sentence beside an off-subject one too).
        let off_topic = sentences.iter().any(|s| s.verdict == Verdict::OffTopic);
        return Some(
            if off_topic || split.iter().all(|c| focus::restates(question, &c.claim)) {
                Refusal::Unanswered
            } else {
                Refusal::Unsupported
            },
        );
    }
    let best = kept
        .iter()
        .filter_map(|(s, _)| s.support)
        .fold(f32::NEG_INFINITY, f32::max);
    if checks.min_answer_support.is_some_and(|m| best < m) {
        return Some(Refusal::Unsupported);
    }
    // A value the passages give for another qualifier or noun was dropped: the question asked
    // for a value, and what is kept around it without a number of its own does not answer
    // ("Yes, we have it." beside the 1S value given for the 2S).
    let wanted_value = sentences.iter().any(|s| {
        matches!(
            s.verdict,
            Verdict::OtherQualifier | Verdict::OtherNoun | Verdict::OtherCell
        )
    });
    if (wanted_value || focus::asks_for_number(question))
        && !kept
            .iter()
            .any(|(_, c)| focus::gives_number(question, &c.claim))
    {
        return Some(Refusal::Unanswered);
    }
    let claims: Vec<&str> = kept.iter().map(|(_, c)| c.claim.as_str()).collect();
    if kinds::other_kind(question, &claims) {
        return Some(Refusal::Unanswered);
    }
    None
}

#[cfg(test)]
mod tests;
