//! `growth`: parse time against input size on adversarial inputs
//! (`growth/inputs.rs`: repeated fence lines, `{` × n, `Action:` × n,
//! deeply nested brackets, one long line) at 1 kB, 10 kB, 100 kB and
//! 1 MB, for `parse` and for the streamed parse (the `ActionWatcher` fed
//! 4-byte deltas, then `parse`). Throughput is in bytes, so linear growth
//! shows as a flat throughput across sizes. `cargo xtask growth` prints
//! the same measurements as a table with the 1 MB / 100 kB ratio.

#[path = "growth/inputs.rs"]
mod inputs;

use std::hint::black_box;
use std::time::Duration;

use agent_text::parse;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use inputs::{PATTERNS, SIZES, streamed_parse};

fn growth(c: &mut Criterion) {
    for (mode, run) in [
        ("parse", parse as fn(&str) -> agent_text::Parsed),
        ("streamed_parse", streamed_parse),
    ] {
        let mut group = c.benchmark_group(format!("growth_{mode}"));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        for pattern in &PATTERNS {
            for size in SIZES {
                let text = pattern.build(size);
                group.throughput(Throughput::Bytes(text.len() as u64));
                group.bench_with_input(BenchmarkId::new(pattern.name, size), &text, |b, text| {
                    b.iter(|| black_box(run(black_box(text))))
                });
            }
        }
        group.finish();
    }
}

criterion_group!(benches, growth);
criterion_main!(benches);
