use siftdds::TopicType;

#[derive(TopicType)]
struct Pair {
    ok: i32,
    both: (i32, i32),
    size: usize,
}

fn main() {}
