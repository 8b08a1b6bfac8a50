//! The functions an x86_64 device image imports, and renaming some of them before it is loaded,
//! so that its calls reach Spread's definitions instead of libomp's (a host device's leagues,
//! `device::host::league`).
//!
//! A rename rewrites the name in the image's dynamic string table in place (the new name may not
//! be longer) and marks the symbol's reference unversioned, so that the loader binds it to
//! whichever object defines the new name. Nothing else in the image moves.

use object::elf::{FileHeader64, SHT_DYNSYM, SHT_GNU_VERSYM};
use object::read::elf::{FileHeader, SectionHeader, Sym};
use object::LittleEndian as LE;

/// `VER_NDX_GLOBAL`: an unversioned symbol reference.
const VER_NDX_GLOBAL: u16 = 1;

/// An undefined dynamic symbol: its name and where the name and its version entry are.
struct Import {
    name: Vec<u8>,
    /// Offset of the name in the file.
    name_at: usize,
    /// Offset of the symbol's `.gnu.version` entry in the file, when the image has one.
    version_at: Option<usize>,
}

/// The image's undefined dynamic symbols, and the file offsets of every symbol name.
fn read(bytes: &[u8]) -> Result<(Vec<Import>, Vec<usize>), String> {
    let header = FileHeader64::<LE>::parse(bytes).map_err(|e| e.to_string())?;
    let sections = header.sections(LE, bytes).map_err(|e| e.to_string())?;
    let table = sections
        .symbols(LE, bytes, SHT_DYNSYM)
        .map_err(|e| e.to_string())?;
    let strings = sections
        .section(table.string_section())
        .map_err(|e| e.to_string())?;
    let strings_at = usize::try_from(strings.sh_offset(LE)).map_err(|e| e.to_string())?;
    let versym = sections
        .iter()
        .find(|s| s.sh_type(LE) == SHT_GNU_VERSYM)
        .and_then(|s| usize::try_from(s.sh_offset(LE)).ok());
    let mut imports = Vec::new();
    let mut names = Vec::new();
    for (index, sym) in table.symbols().iter().enumerate() {
        let Ok(name_off) = usize::try_from(sym.st_name(LE)) else {
            continue;
        };
        let Some(name_at) = strings_at.checked_add(name_off) else {
            continue;
        };
        names.push(name_at);
        if index == 0 || !sym.is_undefined(LE) {
            continue;
        }
        let Ok(name) = sym.name(LE, table.strings()) else {
            continue;
        };
        imports.push(Import {
            name: name.to_vec(),
            name_at,
            version_at: versym.and_then(|v| v.checked_add(2 * index)),
        });
    }
    Ok((imports, names))
}

/// The names of the functions and data the ELF shared object `bytes` imports (its undefined
/// dynamic symbols); empty for bytes that are not one.
pub fn imported(bytes: &[u8]) -> Vec<String> {
    read(bytes)
        .map(|(imports, _)| {
            imports
                .into_iter()
                .map(|i| String::from_utf8_lossy(&i.name).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// A copy of the ELF shared object `bytes` in which each import named by the first element of a
/// pair in `renames` is named by the second instead (imports not in the image are skipped).
///
/// Fails, changing nothing, when a new name is longer than the old one, or when the old name's
/// bytes are shared with another symbol's name (the linker may store a name as the tail of a
/// longer one): renaming it would rename that symbol too.
pub fn rename_imports(bytes: &[u8], renames: &[(&str, &str)]) -> Result<Vec<u8>, String> {
    let (imports, names) = read(bytes)?;
    let mut out = bytes.to_vec();
    for (from, to) in renames {
        if to.len() > from.len() {
            return Err(format!("'{to}' is longer than '{from}'"));
        }
        for import in imports.iter().filter(|i| i.name == from.as_bytes()) {
            let start = import.name_at;
            let end = start + from.len();
            let shared = names.iter().any(|&n| n > start && n <= end)
                || (start > 0 && bytes.get(start - 1) != Some(&0));
            if shared {
                return Err(format!("the name '{from}' is shared with another symbol"));
            }
            let slot = out
                .get_mut(start..=end)
                .ok_or_else(|| format!("the name '{from}' lies outside the image"))?;
            slot.fill(0);
            slot[..to.len()].copy_from_slice(to.as_bytes());
            if let Some(at) = import.version_at {
                let entry = out
                    .get_mut(at..at + 2)
                    .ok_or_else(|| format!("the version of '{from}' lies outside the image"))?;
                entry.copy_from_slice(&VER_NDX_GLOBAL.to_le_bytes());
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::write::{Object, Symbol, SymbolSection};
    use object::{Architecture, BinaryFormat, Endianness, SymbolFlags, SymbolKind, SymbolScope};

    /// A relocatable object has no dynamic symbol table: nothing is imported, renaming fails.
    #[test]
    fn objects_without_dynamic_symbols() {
        let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
        obj.add_symbol(Symbol {
            name: b"__kmpc_fork_teams".to_vec(),
            value: 0,
            size: 0,
            kind: SymbolKind::Text,
            scope: SymbolScope::Dynamic,
            weak: false,
            section: SymbolSection::Undefined,
            flags: SymbolFlags::None,
        });
        let bytes = obj.write().expect("object writes");
        assert!(imported(&bytes).is_empty());
        assert!(rename_imports(&bytes, &[("__kmpc_fork_teams", "__x")]).is_err());
        assert!(imported(b"not an ELF file").is_empty());
    }
}
