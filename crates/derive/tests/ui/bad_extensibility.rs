use siftdds::TopicType;

#[derive(TopicType)]
#[dds(extensibility = "extensible")]
struct Wrong {
    a: i32,
}

fn main() {}
