//! One seed drives a whole run: the same seed gives the same JSON bit for
//! bit; another seed gives a different run.

mod common;

fn scenario(seed: u64) -> String {
    format!(
        r#"seed = {seed}
{}
[precondition]
fill = 0.9
random_overwrite = 0.5

[[job]]
rw = "randrw"
rwmixread = 30
bs = "8k"
iodepth = 4
numjobs = 2
runtime = "1s"
random_distribution = "zipf:0.9"
"#,
        common::small_device(0.07, "cost-benefit")
    )
}

#[test]
fn same_seed_same_json() {
    let a = common::run(&scenario(7)).to_json();
    let b = common::run(&scenario(7)).to_json();
    assert_eq!(a, b);
    let c = common::run(&scenario(8)).to_json();
    assert_ne!(a, c, "a different seed should change the run");
}

#[test]
fn reads_are_checked_against_the_oracle() {
    let r = common::run(&scenario(3));
    assert!(r.oracle.blocks_checked_count > 500, "{:?}", r.oracle);
    assert_eq!(r.oracle.mismatches_count, 0);
    assert!(r.ftl.counters.gc_count > 0, "the aged device should collect garbage");
}
