use super::*;

#[test]
fn positions_agree_with_roxmltree_everywhere() {
    let long = "é".repeat(3000);
    let text = format!("<a>\n  <b x=\"1\"/>\r\n<c>{long}<d/>\n\n</c>\u{4e2d}<e/></a>");
    let doc = roxmltree::Document::parse(&text).unwrap();
    let index = TextIndex::new(&text);
    for (offset, _) in text.char_indices().chain([(text.len(), ' ')]) {
        let p = doc.text_pos_at(offset);
        let (got, walked) = index.locate(&text, offset);
        assert_eq!((got.line, got.col), (p.row, p.col), "offset {offset}");
        assert!(walked <= MARK_SPACING + 4, "walked {walked}");
    }
}
