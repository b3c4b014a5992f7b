//! The confirmation step of `fleet land`, driven through the library with a scripted
//! answer: what is shown, and that a "no" changes nothing.

use std::cell::RefCell;

use crate::common::Env;
use fleet::context::Context;
use fleet::land::{self, LandOptions, Outcome, Ui};
use fleet::queue::Queue;

struct Scripted {
    answer: bool,
    shown: RefCell<Vec<String>>,
}

impl Ui for Scripted {
    fn note(&self, _: &str) {}
    fn progress(&self, _: &str, _: &str, _: std::time::Duration) {}
    fn confirm(&self, lane: &str, summary: &str) -> bool {
        self.shown.borrow_mut().push(format!("{lane}\n{summary}"));
        self.answer
    }
}

fn options() -> LandOptions {
    LandOptions {
        lanes: vec!["a".into()],
        ..Default::default()
    }
}

#[test]
fn declining_shows_the_diff_and_changes_nothing() {
    let env = Env::new();
    let repo = env.one_ready_lane_editing_readme();
    let old = env.git(&repo, &["rev-parse", "main"]);
    let ctx = Context::find(&repo).unwrap();
    let ui = Scripted {
        answer: false,
        shown: RefCell::new(Vec::new()),
    };
    let reports = land::land(&ctx, &Queue::Local, &options(), &ui)
        .unwrap()
        .lanes;
    assert!(matches!(reports[0].outcome, Outcome::Refused { .. }));
    let shown = ui.shown.borrow().join("\n");
    assert!(shown.contains("M README (+1 -1)"), "{shown}");
    assert!(
        shown.contains("-old line") && shown.contains("+new line"),
        "{shown}"
    );
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), old);
}

#[test]
fn accepting_lands() {
    let env = Env::new();
    let repo = env.one_ready_lane_editing_readme();
    let ctx = Context::find(&repo).unwrap();
    let ui = Scripted {
        answer: true,
        shown: RefCell::new(Vec::new()),
    };
    let reports = land::land(&ctx, &Queue::Local, &options(), &ui)
        .unwrap()
        .lanes;
    assert!(
        matches!(reports[0].outcome, Outcome::Landed { .. }),
        "{:?}",
        reports[0].outcome
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("README")).unwrap(),
        "new line\n"
    );
}
