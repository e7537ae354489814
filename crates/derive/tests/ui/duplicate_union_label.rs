use siftdds::TopicType;

#[derive(TopicType)]
enum Choice {
    #[dds(discriminant = 1)]
    Number(i32),
    #[dds(discriminant = 2, discriminant = 1)]
    Text(i32, String),
}

fn main() {}
