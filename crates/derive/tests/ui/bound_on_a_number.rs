use siftdds::TopicType;

#[derive(TopicType)]
struct Bounded {
    #[dds(bound = 8)]
    n: i32,
}

fn main() {}
