//! The evaluation harness: metric parity with pytrec_eval, and an end-to-end run with exact values.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use mitra::beir;
use mitra::eval::{self, answers, EvalRequest, Retriever};
use mitra::metrics::{self, QueryMetrics};

use crate::common;

fn data(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/eval")
        .join(name)
}

fn read_run(path: &Path) -> BTreeMap<String, Vec<(String, f64)>> {
    let mut out: BTreeMap<String, Vec<(String, f64)>> = BTreeMap::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        out.entry(f[0].to_string())
            .or_default()
            .push((f[2].to_string(), f[4].parse().unwrap()));
    }
    out
}

/// Recomputes every metric from a committed run and compares with pytrec_eval's values
/// (`benches/pytrec_parity.py` produced the JSON).
fn check_parity(run: &Path, qrels: &Path, expected: &Path) {
    let run = read_run(run);
    let qrels = beir::read_qrels(qrels).unwrap();
    let want: HashMap<String, QueryMetrics> =
        serde_json::from_str(&std::fs::read_to_string(expected).unwrap()).unwrap();
    assert!(!want.is_empty());
    let mut checked = 0;
    for (qid, w) in &want {
        let got = metrics::evaluate(&metrics::trec_order(run[qid].clone()), &qrels[qid]);
        for (name, f) in metrics::COLUMNS {
            assert!(
                (f(&got) - f(w)).abs() < 1e-6,
                "query {qid} {name}: mitra {} vs pytrec_eval {}",
                f(&got),
                f(w)
            );
            checked += 1;
        }
    }
    assert_eq!(checked, want.len() * metrics::COLUMNS.len());
}

#[test]
fn metrics_equal_pytrec_eval_on_cranfield_and_cisi() {
    for ds in ["cranfield", "cisi"] {
        let qrels = beir::qrels_path(&common::datasets().join(ds));
        check_parity(
            &data(&format!("{ds}.bm25.run")),
            &qrels,
            &data(&format!("{ds}.bm25.pytrec.json")),
        );
    }
}

#[test]
fn metrics_equal_pytrec_eval_with_ties_and_graded_judgments() {
    check_parity(
        &data("ties.run"),
        &data("ties.qrels.tsv"),
        &data("ties.pytrec.json"),
    );
}

fn write_collection(dir: &Path) {
    std::fs::create_dir_all(dir.join("qrels")).unwrap();
    let docs = [
        ("d1", "alpha alpha alpha beta"),
        ("d2", "alpha beta gamma delta"),
        ("d3", "gamma delta epsilon zeta"),
        ("d4", "omega"),
        ("d5", "omega omega psi"),
    ];
    let corpus: Vec<String> = docs
        .iter()
        .map(|(id, t)| serde_json::json!({"_id": id, "title": "", "text": t}).to_string())
        .collect();
    std::fs::write(dir.join("corpus.jsonl"), corpus.join("\n")).unwrap();
    std::fs::write(
        dir.join("queries.jsonl"),
        "{\"_id\": \"q1\", \"text\": \"alpha\"}\n{\"_id\": \"q2\", \"text\": \"omega psi\"}\n{\"_id\": \"q3\", \"text\": \"unjudged\"}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("paraphrased.jsonl"),
        "{\"_id\": \"q1\", \"text\": \"omega\"}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("qrels/test.tsv"),
        "query-id\tcorpus-id\tscore\nq1\td2\t1\nq1\td4\t2\nq2\td5\t1\n",
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn end_to_end_exact_values() {
    let dir = tempfile::tempdir().unwrap();
    let ds = dir.path().join("tiny");
    write_collection(&ds);
    let cfg = common::config(&dir.path().join("store"));
    let (mut store, mut index) = common::open(&cfg).await;
    let req = EvalRequest {
        dataset: ds.clone(),
        retrievers: vec![Retriever::Bm25],
        k: 10,
        depth: 100,
        query_files: vec![ds.join("queries.jsonl"), ds.join("paraphrased.jsonl")],
        qrels: None,
    };
    let (rows, _) = eval::run(&mut store, &mut index, &cfg, &req).await.unwrap();
    assert_eq!(rows.len(), 2, "one row per query set");
    let r = &rows[0];
    assert_eq!((r.query_set.as_str(), r.queries), ("queries.jsonl", 2));
    let ranked = |q: &str| -> Vec<&str> { r.runs[q].iter().map(|(d, _)| d.as_str()).collect() };
    assert_eq!(ranked("q1"), ["d1", "d2"]);
    assert_eq!(ranked("q2"), ["d5", "d4"]);

    let l3 = 3f64.log2();
    let q1 = QueryMetrics {
        ndcg_5: (1.0 / l3) / (2.0 + 1.0 / l3),
        ndcg_10: (1.0 / l3) / (2.0 + 1.0 / l3),
        graded_ndcg_5: (1.0 / l3) / (3.0 + 1.0 / l3),
        mrr: 0.5,
        p_1: 0.0,
        p_3: 1.0 / 3.0,
        p_5: 0.2,
        r_1: 0.0,
        r_3: 0.5,
        r_5: 0.5,
        r_100: 0.5,
        map: 0.25,
        hit_5: 1.0,
    };
    let q2 = QueryMetrics {
        ndcg_5: 1.0,
        ndcg_10: 1.0,
        graded_ndcg_5: 1.0,
        mrr: 1.0,
        p_1: 1.0,
        p_3: 1.0 / 3.0,
        p_5: 0.2,
        r_1: 1.0,
        r_3: 1.0,
        r_5: 1.0,
        r_100: 1.0,
        map: 1.0,
        hit_5: 1.0,
    };
    for (name, f) in metrics::COLUMNS {
        assert!((f(&r.per_query["q1"]) - f(&q1)).abs() < 1e-12, "q1 {name}");
        assert!((f(&r.per_query["q2"]) - f(&q2)).abs() < 1e-12, "q2 {name}");
        assert!(
            (f(&r.mean) - (f(&q1) + f(&q2)) / 2.0).abs() < 1e-12,
            "mean {name}"
        );
    }
    // The second query set reports separately: "omega" ranks d5 (tf 2) then d4, nothing relevant
    // for q1 there is d4 (grade 2) at rank 2.
    let p = &rows[1];
    assert_eq!(p.query_set, "paraphrased.jsonl");
    assert_eq!(p.per_query["q1"].mrr, 0.5);

    // The run file has the documented format and round-trips through the parity path.
    let run_path = dir.path().join("tiny.run");
    eval::write_run(&run_path, &[r]).unwrap();
    let text = std::fs::read_to_string(&run_path).unwrap();
    let first: Vec<&str> = text.lines().next().unwrap().split(' ').collect();
    assert_eq!(first[..4], ["q1", "Q0", "d1", "1"]);
    assert_eq!(first[5], "mitra-bm25");

    // Answer evaluation with the retrieval-threshold baseline.
    let qs = dir.path().join("questions.jsonl");
    std::fs::write(
        &qs,
        "{\"_id\": \"a1\", \"text\": \"alpha\", \"answerable\": true, \"key_points\": [\"alpha beta\", \"kappa\"]}\n\
         {\"_id\": \"a2\", \"text\": \"zeppelin\", \"answerable\": false}\n\
         {\"_id\": \"a3\", \"text\": \"omega\", \"answerable\": false}\n",
    )
    .unwrap();
    let questions = answers::read_questions(&qs).unwrap();
    let texts: HashMap<String, String> = [
        ("d1@1#0", "alpha alpha alpha beta"),
        ("d2@1#0", "alpha beta gamma delta"),
        ("d4@1#0", "omega"),
        ("d5@1#0", "omega omega psi"),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    let answerer = answers::RetrievalThresholdAnswerer {
        index: &index,
        texts,
        threshold: 0.01,
        top: 3,
    };
    let rep = answers::evaluate(&answerer, index.analyzer(), &questions, None).unwrap();
    assert_eq!(rep.questions, 3);
    assert!((rep.abstention_accuracy - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(rep.answered_when_answerable, 1.0);
    assert_eq!(rep.abstained_when_unanswerable, 0.5);
    assert_eq!(rep.key_point_coverage, 0.5);
}

/// The traces say which citations are gold, by the rule citation precision uses.
#[test]
fn answer_traces_mark_the_gold_citations() {
    struct Scripted;
    impl answers::Answerer for Scripted {
        fn answer(&self, q: &answers::Question) -> Result<answers::Answer, eval::EvalError> {
            Ok(answers::Answer {
                text: Some(format!("about {}", q.text)),
                citations: vec!["notes/d1@2#0".into(), "d2@1#3".into()],
                sentences: (1, 1),
                numbers: (0, 0),
                trace: Some(serde_json::json!({"id": q.id})),
            })
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let qs = dir.path().join("questions.jsonl");
    std::fs::write(
        &qs,
        "{\"_id\": \"g1\", \"text\": \"alpha\", \"gold_docs\": [\"d1\"]}\n\
         {\"_id\": \"g2\", \"text\": \"beta\"}\n",
    )
    .unwrap();
    let questions = answers::read_questions(&qs).unwrap();
    let analyzer = mitra::analyzer::PhysicsAnalyzer::new(mitra::analyzer::AnalyzerOptions {
        stemming: true,
        stopwords: true,
    });
    let mut out: Vec<u8> = Vec::new();
    let rep = answers::evaluate(&Scripted, &analyzer, &questions, Some(&mut out)).unwrap();
    assert_eq!(rep.citation_precision, 0.5);
    let rows: Vec<serde_json::Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        rows[0]["gold_citations"],
        serde_json::json!(["notes/d1@2#0"])
    );
    assert_eq!(rows[1]["gold_citations"], serde_json::json!([]));
}
