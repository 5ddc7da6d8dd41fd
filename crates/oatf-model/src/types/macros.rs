//! Declarative helpers that generate the model's structs with hand-written serde impls.
//!
//! Derived serde code cannot capture `x-` keys beside `deny_unknown_fields`, and `#[serde(flatten)]`
//! buffers the whole object, which loses the location of errors. These macros generate a `Serialize`
//! that writes fields in specification order (absent optional fields omitted, extensions last) and a
//! `Deserialize` that treats an explicit `null` as absent, captures `x-` keys when the struct has an
//! `extensions` field, and rejects every other unknown key.

/// The Rust type of a field: `req T` is `T`, `opt T` is `Option<T>`.
macro_rules! field_type {
    (req $t:ty) => { $t };
    (opt $t:ty) => { Option<$t> };
}

/// Turns the collected `Option<T>` of a field into the field value.
macro_rules! field_finish {
    (req, $v:ident, $key:literal) => {
        match $v {
            Some(v) => v,
            // While `parse` reads YAML, a missing required field is recorded for `validate`
            // (spec-decisions 1) and the field gets its default; otherwise it is an error.
            None if $crate::types::collect::missing_required($key) => Default::default(),
            None => return Err(serde::de::Error::missing_field($key)),
        }
    };
    (opt, $v:ident, $key:literal) => {
        $v
    };
}

/// Writes one field ([`Field::write`](crate::types::Field::write)).
macro_rules! field_ser {
    (req, $map:ident, $key:literal, $val:expr) => {
        $crate::types::Field::write(&mut $map, $key, $val)?;
    };
    (opt, $map:ident, $key:literal, $val:expr) => {
        if let Some(v) = $val {
            $crate::types::Field::write(&mut $map, $key, v)?;
        }
    };
}

/// Defines a model struct with its serde impls.
///
/// Each field is `req name: Type => "yaml_key"` or `opt name: Type => "yaml_key"` (the latter becomes
/// `Option<Type>`). A trailing `[extensions]` adds an ordered `extensions` map for `x-` keys.
macro_rules! oatf_struct {
    (
        $(#[$smeta:meta])*
        pub struct $name:ident ($expect:literal) {
            $(
                $(#[$fmeta:meta])*
                $kind:ident $field:ident : $ty:ty => $key:literal,
            )*
        }
        $([$ext:ident])?
    ) => {
        $(#[$smeta])*
        pub struct $name {
            $(
                $(#[$fmeta])*
                pub $field: field_type!($kind $ty),
            )*
            $(
                /// Extension fields (`x-` keys) in their original relative order.
                pub $ext: $crate::types::enums::Extensions,
            )?
        }

        impl $crate::types::Field for $name {}

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                #[allow(unused_mut)]
                let mut map = serializer.serialize_map(None)?;
                $( field_ser!($kind, map, $key, &self.$field); )*
                $(
                    for (key, value) in &self.$ext {
                        serde::ser::SerializeMap::serialize_entry(&mut map, key, value)?;
                    }
                )?
                serde::ser::SerializeMap::end(map)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                const FIELDS: &[&str] = &[$($key),*];
                struct StructVisitor;
                impl<'de> serde::de::Visitor<'de> for StructVisitor {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str($expect)
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        $( let mut $field: Option<$ty> = None; )*
                        $( let mut $ext = $crate::types::enums::Extensions::new(); )?
                        while let Some(key) = map.next_key::<String>()? {
                            match key.as_str() {
                                $(
                                    $key => {
                                        if $field.is_some() {
                                            return Err(serde::de::Error::duplicate_field($key));
                                        }
                                        // A value of the wrong type is recorded and left out
                                        // while `parse` collects (`types::collect`).
                                        $field = <$ty as $crate::types::Field>::read(&mut map)?;
                                    }
                                )*
                                _ => {
                                    $(
                                        if key.starts_with("x-") {
                                            let value = map.next_value::<serde_json::Value>()?;
                                            $ext.insert(key, value);
                                            continue;
                                        }
                                    )?
                                    $crate::types::collect::unknown_field(&mut map, &key, FIELDS)?;
                                }
                            }
                        }
                        Ok($name {
                            $( $field: field_finish!($kind, $field, $key), )*
                            $( $ext, )?
                        })
                    }
                }
                deserializer.deserialize_map(StructVisitor)
            }
        }
    };
}

/// Defines a closed enumeration (SDK §2.20) with its canonical strings.
macro_rules! closed_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident ($label:literal $(, rule $rule:ident)?) {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )*
        }

        impl $crate::types::enums::ClosedEnum for $name {
            const VARIANTS: &'static [Self] = &[$($name::$variant),*];
            const LABEL: &'static str = $label;
            $( const RULE: $crate::rules::Rule = $crate::rules::Rule::$rule; )?
            fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )*
                }
            }
        }

        impl $name {
            /// The canonical string of this value, as written in documents.
            pub fn as_str(self) -> &'static str {
                <Self as $crate::types::enums::ClosedEnum>::as_str(self)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::types::enums::UnknownVariant;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                <Self as $crate::types::enums::ClosedEnum>::from_name(s).ok_or_else(|| {
                    $crate::types::enums::UnknownVariant::new::<Self>(s)
                })
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = String::deserialize(deserializer)?;
                <Self as $crate::types::enums::ClosedEnum>::from_name(&text).ok_or_else(|| {
                    const NAMES: &[&str] = &[$($text),*];
                    serde::de::Error::unknown_variant(&text, NAMES)
                })
            }
        }
    };
}
