use super::*;

#[test]
fn ids_are_the_idl_values() {
    assert_eq!(QosPolicyId::UserData.as_u32(), 1);
    assert_eq!(QosPolicyId::Reliability.as_u32(), 11);
    assert_eq!(QosPolicyId::DurabilityService.as_u32(), 22);
    assert_eq!(QosPolicyId::DataRepresentation.as_u32(), 23);
    assert_eq!(QosPolicyId::TypeConsistencyEnforcement.as_u32(), 24);
    for (i, id) in QosPolicyId::ALL.iter().enumerate() {
        assert_eq!(id.as_u32() as usize, i + 1, "{id} out of order");
        assert_eq!(QosPolicyId::from_u32(id.as_u32()), Some(*id));
    }
}

#[test]
fn unknown_ids_have_no_policy() {
    assert_eq!(QosPolicyId::from_u32(0), None);
    assert_eq!(QosPolicyId::from_u32(25), None);
}
