#pragma once
// A directory of files written as a whole (a model: config.json + model.safetensors):
// readers see the old directory or the new one, never new weights with an old config.
//
//   1. leftovers of an earlier save that was killed (hidden siblings .NAME.new-*) go;
//   2. `write_files` fills a fresh hidden sibling DIR/../.NAME.new-XXXXXX;
//   3. files of an existing DIR that write_files did not make (a tokenizer, a README) are
//      carried over (hard links, or copies across filesystems), except those named in
//      `replaced`: files of the kind this write makes that would describe the old
//      contents (a training checkpoint's trainer.json beside a plain model's weights);
//   4. the new directory and DIR swap in one step (renameat2 RENAME_EXCHANGE), or the new
//      one is renamed to DIR if there was none; the old one is removed.
// Missing parent directories are created (mkdir -p). Any failure before step 4 (a full disk, a write error, an exception from write_files)
// removes the new directory and leaves DIR as it was. Throws hs::Error naming DIR.
#include <functional>
#include <string>
#include <vector>

namespace hs {

void write_directory_atomic(const std::string& dir, const std::function<void(const std::string& new_dir)>& write_files,
                            const std::vector<std::string>& replaced = {});

}  // namespace hs
