use siftdds::TopicType;

struct NotAType;

#[derive(TopicType)]
struct Holder {
    ok: i32,
    inner: NotAType,
}

fn main() {}
