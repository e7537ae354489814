use siftdds::TopicType;

#[derive(TopicType)]
enum Choice {
    #[dds(discriminant = 1)]
    Number(i32),
    Text(String),
}

fn main() {}
