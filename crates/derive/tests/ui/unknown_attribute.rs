use siftdds::TopicType;

#[derive(TopicType)]
struct Typo {
    #[dds(bounds = 8)]
    s: String,
}

fn main() {}
