use siftdds::TopicType;

#[derive(TopicType)]
#[dds(extensibility = "mutable")]
struct Twice {
    #[dds(id = 3)]
    a: i32,
    #[dds(id = 2)]
    b: i32,
    c: i32,
}

fn main() {}
