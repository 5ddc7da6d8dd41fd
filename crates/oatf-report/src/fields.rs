//! A struct's serialized fields as the entries of a map, with entries of the report's own (D-180):
//! an entry the struct has is written at its place, the others after its fields, in order. That is
//! the object inserting them into the struct's `serde_json::Value` gives (with `preserve_order`), but
//! written straight to the output: no `Value` is built, no key is hashed.

use serde::ser::{self, Impossible, Serialize, SerializeMap, SerializeStruct, Serializer};

/// The entries a report adds to a struct's fields (or writes in place of one of them).
pub(crate) trait Entries {
    /// The keys (at most eight), in the order the ones the struct does not have are written after its
    /// fields.
    const KEYS: &'static [&'static str];

    /// Writes the entry `KEYS[index]` into `map`.
    fn write<M: SerializeMap>(&self, index: usize, map: &mut M) -> Result<(), M::Error>;
}

/// Writes `base`'s fields (a struct) and then `entries` into `map` (see the module).
pub(crate) fn write_fields<T, E, M>(base: &T, entries: &E, map: &mut M) -> Result<(), M::Error>
where
    T: Serialize + ?Sized,
    E: Entries,
    M: SerializeMap,
{
    // Which of the keys the struct had (and were written in its place).
    let mut written = [false; MAX_KEYS];
    base.serialize(Fields {
        map: &mut *map,
        entries,
        written: &mut written,
    })?;
    for (index, done) in written.iter().enumerate().take(E::KEYS.len()) {
        if !done {
            entries.write(index, map)?;
        }
    }
    Ok(())
}

/// The most entries a report adds (the JSON document adds four); keys past it are never written.
const MAX_KEYS: usize = 8;

/// The serializer of `base`: it accepts a struct only, each field an entry of `map`.
struct Fields<'m, M, E> {
    map: &'m mut M,
    entries: &'m E,
    written: &'m mut [bool; MAX_KEYS],
}

impl<M: SerializeMap, E: Entries> SerializeStruct for Fields<'_, M, E> {
    type Ok = ();
    type Error = M::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), M::Error> {
        let index = E::KEYS.iter().position(|k| *k == key);
        match index.and_then(|i| self.written.get_mut(i).map(|done| (i, done))) {
            Some((index, done)) => {
                *done = true;
                self.entries.write(index, self.map)
            }
            None => self.map.serialize_entry(key, value),
        }
    }

    fn end(self) -> Result<(), M::Error> {
        Ok(())
    }
}

fn not_a_struct<E: ser::Error>() -> E {
    E::custom("a report extends a struct only")
}

impl<'m, M: SerializeMap, E: Entries> Serializer for Fields<'m, M, E> {
    type Ok = ();
    type Error = M::Error;
    type SerializeSeq = Impossible<(), M::Error>;
    type SerializeTuple = Impossible<(), M::Error>;
    type SerializeTupleStruct = Impossible<(), M::Error>;
    type SerializeTupleVariant = Impossible<(), M::Error>;
    type SerializeMap = Impossible<(), M::Error>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), M::Error>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, M::Error> {
        Ok(self)
    }

    fn serialize_bool(self, _: bool) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_i8(self, _: i8) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_i16(self, _: i16) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_i32(self, _: i32) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_i64(self, _: i64) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_u8(self, _: u8) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_u16(self, _: u16) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_u32(self, _: u32) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_u64(self, _: u64) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_f32(self, _: f32) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_f64(self, _: f64) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_char(self, _: char) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_str(self, _: &str) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_none(self) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_unit(self) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), M::Error> {
        Err(not_a_struct())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, M::Error> {
        Err(not_a_struct())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, M::Error> {
        Err(not_a_struct())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, M::Error> {
        Err(not_a_struct())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, M::Error> {
        Err(not_a_struct())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, M::Error> {
        Err(not_a_struct())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, M::Error> {
        Err(not_a_struct())
    }
}

#[cfg(test)]
mod tests {
    use serde::Serialize;
    use serde_json::{Value, json};

    use super::*;

    #[derive(Serialize)]
    struct Base {
        a: u8,
        #[serde(skip_serializing_if = "Option::is_none")]
        b: Option<&'static str>,
        c: [u8; 2],
    }

    /// Replaces or adds `b` and adds `d`.
    struct Added;

    impl Entries for Added {
        const KEYS: &'static [&'static str] = &["d", "b"];
        fn write<M: SerializeMap>(&self, index: usize, map: &mut M) -> Result<(), M::Error> {
            match index {
                0 => map.serialize_entry("d", &true),
                _ => map.serialize_entry("b", "ours"),
            }
        }
    }

    struct Doc(Base);

    impl Serialize for Doc {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut map = serializer.serialize_map(None)?;
            write_fields(&self.0, &Added, &mut map)?;
            map.end()
        }
    }

    /// What inserting the entries into the struct's `Value` gives.
    fn by_value(base: &Base) -> Value {
        let mut value = serde_json::to_value(base).unwrap_or(Value::Null);
        if let Some(object) = value.as_object_mut() {
            object.insert("d".into(), json!(true));
            object.insert("b".into(), json!("ours"));
        }
        value
    }

    #[test]
    fn entries_replace_in_place_or_follow_the_fields() {
        for base in [
            Base {
                a: 1,
                b: Some("theirs"),
                c: [2, 3],
            },
            Base {
                a: 1,
                b: None,
                c: [2, 3],
            },
        ] {
            let expected = serde_json::to_string_pretty(&by_value(&base)).unwrap_or_default();
            let doc = Doc(base);
            assert_eq!(
                serde_json::to_string_pretty(&doc).unwrap_or_default(),
                expected
            );
            assert_eq!(
                serde_json::to_value(&doc).unwrap_or(Value::Null),
                serde_json::from_str::<Value>(&expected).unwrap_or(Value::Null)
            );
        }
        // In place: `b` keeps its position before `c`; added: after the fields.
        let text = serde_json::to_string(&Doc(Base {
            a: 1,
            b: Some("x"),
            c: [0, 0],
        }))
        .unwrap_or_default();
        assert_eq!(text, r#"{"a":1,"b":"ours","c":[0,0],"d":true}"#);
        let text = serde_json::to_string(&Doc(Base {
            a: 1,
            b: None,
            c: [0, 0],
        }))
        .unwrap_or_default();
        assert_eq!(text, r#"{"a":1,"c":[0,0],"d":true,"b":"ours"}"#);
    }

    #[test]
    fn anything_but_a_struct_is_an_error() {
        struct NotStruct;
        impl Serialize for NotStruct {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(None)?;
                write_fields(&7_u8, &Added, &mut map)?;
                map.end()
            }
        }
        assert!(serde_json::to_string(&NotStruct).is_err());
    }
}
