use siftdds::TopicType;

#[derive(TopicType)]
struct Keyed {
    #[key]
    id: Option<i32>,
}

fn main() {}
