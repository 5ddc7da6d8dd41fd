//! Library-like documents (`tests/library/`, written for this test, not copied from the public
//! scenario library): they use what real library documents use (tiers on most indicators,
//! multi-actor and cross-protocol execution, regex-heavy patterns, CEL and semantic indicators,
//! every optional envelope field, framework mappings, references, `x-` extensions). Each must
//! validate without errors, keep every tier, and `normalize` must be a fixed point on it.

use std::path::PathBuf;

use oatf::Tier;
use oatf::model::normalize;
use oatf::model::serialize;
use oatf::parse;

fn library() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/library");
    let mut documents: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p.file_name().unwrap().to_string_lossy().into_owned(), text)
        })
        .collect();
    documents.sort();
    documents
}

#[test]
fn library_documents_validate_and_normalize_is_a_fixed_point() {
    let documents = library();
    assert_eq!(documents.len(), 5, "the library-like documents");
    let mut tiers = [0usize; 4];
    for (name, text) in &documents {
        let loaded = oatf::load_with(text, &oatf::default_validate_options())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let once = normalize(parse(text).unwrap());
        assert_eq!(once, loaded.document, "{name}");
        // normalize ∘ normalize = normalize, and serialize → parse → normalize gives it back.
        assert_eq!(normalize(once.clone()), once, "{name}: normalize twice");
        let written = serialize(&once);
        let again = normalize(parse(&written).unwrap_or_else(|e| panic!("{name}: {e}\n{written}")));
        assert_eq!(again, once, "{name}: serialize round trip");
        assert_eq!(serialize(&again), written, "{name}: canonical text");
        // Every tier written is kept, in order.
        let written_tiers: Vec<Option<Tier>> = parse(text)
            .unwrap()
            .indicators()
            .iter()
            .map(|i| i.tier.as_ref().and_then(|t| t.known()))
            .collect();
        let kept: Vec<Option<Tier>> = again
            .indicators()
            .iter()
            .map(|i| i.tier.as_ref().and_then(|t| t.known()))
            .collect();
        assert_eq!(kept, written_tiers, "{name}");
        for tier in kept {
            tiers[tier.map_or(0, |t| t as usize + 1)] += 1;
        }
    }
    // Most indicators have a tier, and every tier is used.
    assert!(tiers[1] > 0 && tiers[2] > 0 && tiers[3] > 0, "{tiers:?}");
    assert!(tiers[0] * 4 < tiers[1] + tiers[2] + tiers[3], "{tiers:?}");
}
