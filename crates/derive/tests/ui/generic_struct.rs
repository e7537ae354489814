use siftdds::TopicType;

#[derive(TopicType)]
struct Wrapper<T> {
    value: T,
}

fn main() {}
