// The interface language (app/i18n): every string the app passes to tr() has a Chinese
// entry with the same printf specifiers, no entry is listed twice, and tr() keeps ImGui ids;
// core's messages, down to the errors of broken model files, have Chinese templates.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "app/i18n/i18n.h"
#include "app/i18n/messages.h"
#include "core/about.h"
#include "core/error.h"
#include "core/formats/hf_config.h"
#include "core/formats/hf_loader.h"
#include "core/formats/llama2c.h"
#include "core/io/hf_llama_dir.h"
#include "core/io/json_file.h"
#include "core/io/model_dir.h"
#include "core/io/safetensors.h"
#include "core/corpus/samples.h"
#include "core/io/state_dict.h"
#include "core/model/config.h"
#include "core/model/model.h"
#include "core/open_source.h"
#include "core/source.h"
#include "core/tokenize/hf_tokenizer.h"
#include "core/tokenize/hf_tokenizer_json.h"
#include "core/tokenize/llama2c_tokenizer.h"
#include "tests/test_util.h"

namespace hs {
namespace {

// The C escapes the app's literals use: \" \\ \n \t.
std::string unescape(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\' || i + 1 == s.size()) {
            out += s[i];
            continue;
        }
        const char c = s[++i];
        out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
    }
    return out;
}

// Every tr("…") literal (adjacent literals joined) in app/**/*.cpp, by file.
std::map<std::string, std::string> tr_literals() {
    std::map<std::string, std::string> found;  // key → first file
    const std::regex call(R"re(\btr\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)\))re");
    const std::regex piece(R"re("((?:[^"\\]|\\.)*)")re");
    for (const auto& entry : std::filesystem::recursive_directory_iterator(HEADSCOPE_SOURCE_DIR "/app")) {
        if (entry.path().extension() != ".cpp") continue;
        std::ifstream in(entry.path());
        std::stringstream ss;
        ss << in.rdbuf();
        const std::string text = ss.str();
        for (std::sregex_iterator it(text.begin(), text.end(), call), end; it != end; ++it) {
            std::string joined;
            const std::string literals = (*it)[1];
            for (std::sregex_iterator p(literals.begin(), literals.end(), piece); p != end; ++p) joined += unescape((*p)[1]);
            const std::string key = joined.substr(0, joined.find("##"));
            if (!key.empty()) found.emplace(key, entry.path().filename().string());
        }
    }
    return found;
}

// The printf conversions of a format, in order ("%d", "%.3g", …; "%%" skipped).
std::vector<std::string> specifiers(std::string_view s) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') continue;
        if (i + 1 < s.size() && s[i + 1] == '%') {
            ++i;
            continue;
        }
        std::size_t j = i + 1;
        while (j < s.size() && std::string_view("-+ #0123456789.lzh").find(s[j]) != std::string_view::npos) ++j;
        if (j < s.size()) out.emplace_back(s.substr(i, j - i + 1));
        i = j;
    }
    return out;
}

TEST(I18n, EveryTrStringOfTheAppHasAChineseEntry) {
    std::set<std::string_view> keys;
    for (const auto& [en, zh] : zh_cn_table()) keys.insert(en);
    const auto literals = tr_literals();
    ASSERT_GT(literals.size(), 300u) << "the scan found too few tr() calls";
    int missing = 0;
    for (const auto& [key, file] : literals)
        if (!keys.count(key)) {
            ADD_FAILURE() << file << ": tr(\"" << key << "\") has no Chinese entry in app/i18n/*.inc";
            ++missing;
        }
    EXPECT_EQ(missing, 0);
}

TEST(I18n, EntriesAreUniqueNonEmptyAndKeepTheirSpecifiers) {
    std::set<std::string_view> seen;
    for (const auto& [en, zh] : zh_cn_table()) {
        EXPECT_TRUE(seen.insert(en).second) << "\"" << en << "\" is listed twice";
        EXPECT_FALSE(zh.empty()) << en;
        EXPECT_EQ(specifiers(en), specifiers(zh)) << en;
    }
}

TEST(I18n, TrTranslatesTheVisiblePartAndKeepsTheId) {
    set_ui_lang(UiLang::Chinese);
    const std::string en = std::string(zh_cn_table().front().first);
    const std::string zh = std::string(zh_cn_table().front().second);
    EXPECT_EQ(std::string(tr(en.c_str())), zh);
    EXPECT_EQ(std::string(tr((en + "##x").c_str())), zh + "##x");
    EXPECT_EQ(std::string(tr("no such string 123")), "no such string 123");
    set_ui_lang(UiLang::English);
    EXPECT_EQ(std::string(tr(en.c_str())), en);
}

TEST(I18n, LanguageNames) {
    EXPECT_EQ(parse_ui_lang("zh-CN"), UiLang::Chinese);
    EXPECT_EQ(parse_ui_lang("en"), UiLang::English);
    EXPECT_EQ(to_string(UiLang::Chinese), "zh");
    EXPECT_THROW(parse_ui_lang("fr"), Error);
}

// Runs `english` through tr_message in Chinese.
std::string in_chinese(const std::string& english) {
    set_ui_lang(UiLang::Chinese);
    std::string out = tr_message(english);
    set_ui_lang(UiLang::English);
    return out;
}

bool has_cjk(const std::string& s) {
    for (std::size_t i = 0; i + 2 < s.size(); ++i)  // U+4E00 … U+9FFF: E4 B8 80 … E9 BF BF
        if (static_cast<unsigned char>(s[i]) >= 0xE4 && static_cast<unsigned char>(s[i]) <= 0xE9) return true;
    return false;
}

TEST(I18nMessages, TemplatesAreUniqueKeepTheirSpecifiersAndAreNotPlainEntries) {
    std::set<std::string_view> plain, seen;
    for (const auto& [en, zh] : zh_cn_table()) plain.insert(en);
    for (const auto& [en, zh] : zh_cn_message_templates()) {
        EXPECT_TRUE(seen.insert(en).second) << "\"" << en << "\" is listed twice";
        EXPECT_FALSE(plain.count(en)) << "\"" << en << "\" is also a plain tr() entry";
        EXPECT_EQ(specifiers(en), specifiers(zh)) << en;
        // Chinese, or (only the role reasons "%s %f ≥ %f", "%s %f ≤ %f") the English format
        // itself: a template that translates just its argument, the metric's name.
        const bool argument_only = en == "%s %f ≥ %f" || en == "%s %f ≤ %f";
        EXPECT_TRUE(argument_only ? zh == en : has_cjk(std::string(zh))) << en;
    }
}

TEST(I18nMessages, CoreMessagesTranslateWithTheirNumbers) {
    // Hand-written Chinese for messages core builds.
    ModelConfig c;
    c.d_model = 50;
    c.heads = 8;
    ASSERT_EQ(validate(c), std::vector<std::string>{"d_model 50 is not divisible by 8 heads"});
    EXPECT_EQ(in_chinese(validate(c)[0]), "d_model 50 不能被 8 个头整除");
    // A %s argument is translated in turn ("decoder text" → 解码器文本).
    EXPECT_EQ(in_chinese("the decoder text has 40 tokens; this model handles at most 16"),
              "解码器文本有 40 个词元；这个模型最多处理 16 个");
    // The continue notice, with core's reason for stopping early translated in turn.
    EXPECT_EQ(in_chinese("Appended 3 of 8 tokens: the model's max_len (64 tokens)."),
              "已续写 3 个词元（请求 8 个）：达到了模型的 max_len（64 个词元）。");
    EXPECT_EQ(in_chinese("Appended 0 of 8 tokens: the model chose its end-of-text token."),
              "已续写 0 个词元（请求 8 个）：模型选择了它的文本结束符。");
    EXPECT_EQ(in_chinese("no sentence could be probed: this model's tokens do not spell the annotated words "
                         "(sentence 0: 17 tokens for 6 words): it reads them as unknown tokens or joins pieces of two words"),
              "没有句子可以探测：这个模型的词元拼不出标注的词（第 0 句：17 个词元对应 6 个词）：它把这些词读作未知词元，"
              "或把两个词的片段连在了一起");
    // GGUF: the words of the message move, the path, tensor and architecture keep their order.
    EXPECT_EQ(in_chinese("/m.gguf holds a 'mamba' model; HeadScope opens GGUF architectures llama, qwen2, qwen3, gemma, "
                         "gemma2, gemma3, phi3, gpt2, gptneox so far"),
              "/m.gguf 是“mamba”模型；HeadScope 目前能打开的 GGUF 架构是 llama、qwen2、qwen3、gemma、gemma2、gemma3、phi3、"
              "gpt2、gptneox");
    EXPECT_EQ(in_chinese("GGUF file '/m.gguf' has 8000 million parameters: about 59.6 GiB once open (f32 weights and "
                         "their packed copies), but this machine has 24.0 GiB available; close other programs or open "
                         "a smaller model"),
              "GGUF file '/m.gguf' 有 8000 百万个参数：打开后约需 59.6 GiB（f32 权重及其打包副本），但本机只有 24.0 GiB "
              "可用；请关闭其他程序或打开更小的模型");
    EXPECT_EQ(in_chinese("GGUF file '/m.gguf' has 8030 million parameters: about 59.8 GiB once open (f32 weights and "
                         "their packed copies), 5.1 GiB even read one layer at a time, but this machine has 4.0 GiB "
                         "available; close other programs or open a smaller model"),
              "GGUF file '/m.gguf' 有 8030 百万个参数：打开后约需 59.8 GiB（f32 权重及其打包副本），即使逐层读取也需 "
              "5.1 GiB，但本机只有 4.0 GiB 可用；请关闭其他程序或打开更小的模型");
    EXPECT_EQ(in_chinese("'/m.gguf' is read from its file one layer at a time (it does not fit in memory as f32), so it "
                         "cannot be saved, edited or trained"),
              "“/m.gguf”是逐层从文件读取的（按 f32 放不进内存），所以不能保存、编辑或训练");
    EXPECT_EQ(in_chinese("HEADSCOPE_MEMORY_LIMIT 'lots' is not a size (a positive number of bytes, or with K, M or G: 8G)"),
              "HEADSCOPE_MEMORY_LIMIT“lots”不是一个大小（应为正的字节数，或带 K、M、G：8G）");
    EXPECT_EQ(in_chinese("/m.gguf: tensor 'output.weight' is (300, 16) (out, in), but the metadata implies (300, 32)"),
              "/m.gguf：张量“output.weight”是 (300, 16)（输出, 输入），但元数据要求 (300, 32)");
    EXPECT_EQ(in_chinese("/m.gguf: tensor 'blk.0.attn_norm.weight' has 16 values, but the metadata implies 32"),
              "/m.gguf：张量“blk.0.attn_norm.weight”有 16 个值，但元数据要求 32 个");
    EXPECT_EQ(in_chinese("Q8_0 ×10, F32 ×5 in GGUF, read one layer at a time"), "Q8_0 ×10, F32 ×5（GGUF 文件，逐层读取）");
    EXPECT_EQ(in_chinese("bf16, read one layer at a time"), "bf16（逐层读取）");  // a Hugging Face directory
    EXPECT_EQ(in_chinese("BF16 ×197 in GGUF"), "BF16 ×197（GGUF 文件）");
    EXPECT_EQ(in_chinese("/m.gguf: tensor 'blk.3.attn_q.weight' is not shaped as 'blk.0.attn_q.weight'"),
              "/m.gguf：张量“blk.3.attn_q.weight”的形状与“blk.0.attn_q.weight”不同");
    EXPECT_EQ(in_chinese("/m.gguf has no tensor 'blk.1.ffn_up.weight', which a llama model needs"),
              "/m.gguf 中没有张量“blk.1.ffn_up.weight”，而 llama 模型需要它");
    EXPECT_EQ(in_chinese("/m.gguf: tensor 'w' is stored as IQ2_XXS, which HeadScope cannot read yet (it reads F32, Q8_0)"),
              "/m.gguf：张量“w”以 IQ2_XXS 存储，HeadScope 暂时读不了（它能读 F32, Q8_0）");
    // A path with spaces and quotes stays as it is.
    EXPECT_EQ(in_chinese("'/tmp/a b/c' does not exist (expected default, a model directory, a GGUF file, a llama2.c .bin "
                         "checkpoint, a worked-example .json or a playground spec like "
                         "random:d_model=64,heads=4,layers=2)"),
              "“/tmp/a b/c”不存在（需要 default、模型目录、GGUF 文件、llama2.c .bin 检查点、算例 .json，或形如 "
              "random:d_model=64,heads=4,layers=2 的试验场规格）");
    EXPECT_EQ(in_chinese("model directory /m has no config.json; it holds the llama2.c checkpoint /m/a.bin: open "
                         "that file instead"),
              "模型目录 /m 中没有 config.json；其中有 llama2.c 检查点 /m/a.bin：请改为打开该文件");
    EXPECT_EQ(in_chinese("llama model"), "llama 模型");
    // A role's reason names its metric in Chinese.
    EXPECT_EQ(in_chinese("prev_token 0.62 ≥ 0.40"), "前一词元 0.62 ≥ 0.40");
    EXPECT_EQ(in_chinese("prev_peak 0.57 ≥ 0.40, uniform 0.10"), "前一词元峰值占比 0.57 ≥ 0.40，均匀注意力下 0.10");
    // A %f slot takes what printf writes (an exponent, −inf, nan) and nothing else.
    EXPECT_EQ(in_chinese("prev_token 1.5e-05 ≥ -inf"), "前一词元 1.5e-05 ≥ -inf");
    EXPECT_EQ(in_chinese("prev_token nan ≥ 0.40"), "前一词元 nan ≥ 0.40");
    EXPECT_EQ(in_chinese("prev_token 0.6x ≥ 0.40"), "prev_token 0.6x ≥ 0.40");
    // A %d slot takes an integer only: "50.5" is no head count, so no template matches.
    EXPECT_EQ(in_chinese("d_model 50.5 is not divisible by 8 heads"), "d_model 50.5 is not divisible by 8 heads");
    // A path is not a message: "Opened /m/my model" keeps the path as it is …
    EXPECT_EQ(in_chinese("Opened /m/my model"), "已打开 /m/my model");
    // … while what follows ": " is one, translated in turn.
    EXPECT_EQ(in_chinese("training stopped: d_model 50 is not divisible by 8 heads"),
              "训练已停止：d_model 50 不能被 8 个头整除");
    // ensure_valid's problems joined by "; ", each translated.
    ModelConfig two;
    two.d_model = 50, two.heads = 8, two.layers = 0;
    try {
        ensure_valid(two);
        ADD_FAILURE() << "two problems passed";
    } catch (const Error& e) {
        const std::string en = e.what();  // "…; layers 0 must be between 1 and MAX"
        const std::string max = en.substr(en.rfind(' ') + 1);
        EXPECT_EQ(in_chinese(en), "d_model 50 不能被 8 个头整除；层数 0 必须在 1 到 " + max + " 之间");
    }
    // No template: unchanged; English: unchanged.
    EXPECT_EQ(in_chinese("safetensors header is 12 bytes"), "safetensors header is 12 bytes");
    EXPECT_EQ(tr_message("d_model 50 is not divisible by 8 heads"), "d_model 50 is not divisible by 8 heads");
    // Long arguments: a 900-byte path is translated; a message beyond 1024 bytes is left alone.
    const std::string path(900, 'p'), longer(5000, 'p');
    EXPECT_EQ(in_chinese("cannot write " + path + ": No space left on device"), "无法写入 " + path + "：No space left on device");
    EXPECT_EQ(in_chinese("cannot write " + longer + ": x"), "cannot write " + longer + ": x");
}

TEST(I18nMessages, EveryPlaygroundCheckAndOpenErrorHasATemplate) {
    // One bad config per check of validate() (core/model/config.cpp).
    std::vector<ModelConfig> bad(15);
    bad[0].d_model = 0;
    bad[1].heads = 0;
    bad[2].d_model = 4, bad[2].heads = 8;
    bad[3].d_model = 50, bad[3].heads = 8;
    bad[4].head_dim = -1;
    bad[5].kv_heads = -1;
    bad[6].heads = 8, bad[6].kv_heads = 3;
    bad[7].d_model = 24, bad[7].heads = 8, bad[7].pe = PosEncoding::Rotary;
    bad[6].head_dim = 5, bad[6].pe = PosEncoding::Rotary;  // the explicit head_dim's rotary message
    bad[8].pe = PosEncoding::Rotary, bad[8].rope_theta = 1.0f;
    bad[9].type_vocab = -1;
    bad[10].layers = 0;
    bad[11].d_ff = 0;
    bad[12].vocab = 1;
    bad[13].max_len = 0, bad[13].norm_eps = 0.0f;
    bad[14].d_model = 8192, bad[14].layers = 64, bad[14].d_ff = 32768;
    std::set<std::string> messages;
    for (const ModelConfig& c : bad) {
        const auto problems = validate(c);
        EXPECT_FALSE(problems.empty());
        messages.insert(problems.begin(), problems.end());
    }
    EXPECT_GE(messages.size(), 17u);
    for (const char* arg : {"", "/no/such/model", HEADSCOPE_SOURCE_DIR "/README.md"}) {
        try {
            open_source(arg);
            ADD_FAILURE() << arg << " opened";
        } catch (const Error& e) {
            messages.insert(e.what());
        }
    }
    for (const std::string& m : messages) {
        const std::string zh = in_chinese(m);
        EXPECT_TRUE(zh != m && has_cjk(zh)) << "no Chinese template matches: " << m;
    }
}

// The default model's empty-text error names what to type, and all of it reads in Chinese
// (it once kept an English hint inside the Chinese sentence).
TEST(I18nMessages, TheDefaultModelsEmptyTextErrorIsChineseThroughout) {
    const auto source = open_source("default");
    SourceInput in;
    in.text = "   ";
    try {
        source->run(in, TraceOptions{});
        ADD_FAILURE() << "an empty text ran";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "the text is empty: type an English or Chinese sentence of the grammar the "
                                         "model learned, or pick a sample");
        const std::string zh = in_chinese(e.what());
        EXPECT_TRUE(has_cjk(zh)) << zh;
        EXPECT_EQ(zh.find("English"), std::string::npos) << zh;
    }
}

// ---------------------------------------------------------------------------------------
// Errors of broken or foreign model files (app/i18n/zh_cn_file_errors.inc): each made for
// real by writing a hostile file and opening it the way the app does.

using nlohmann::json;

// v as 8 little-endian bytes (a safetensors header length).
std::string le64(std::uint64_t v) {
    std::string out;
    for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
    return out;
}

// Little-endian int32s: a llama2.c header, a tokenizer.bin record.
std::string le32(std::initializer_list<std::int32_t> values) {
    std::string out;
    for (std::int32_t v : values)
        for (int i = 0; i < 4; ++i) out += static_cast<char>((static_cast<std::uint32_t>(v) >> (8 * i)) & 0xFF);
    return out;
}

// A safetensors file: header length, header, `data` zero bytes.
std::string safetensors_bytes(const std::string& header, std::size_t data = 0) {
    return le64(header.size()) + header + std::string(data, '\0');
}

// `j` with the value at the JSON pointer `at` replaced.
json edited(json j, const char* at, json value) {
    j[json::json_pointer(at)] = std::move(value);
    return j;
}

// A scratch directory and the messages of the errors made in it.
struct Hostile {
    test::TempDir tmp{"headscope_i18n"};
    std::vector<std::string> messages;

    // Writes DIR/name (parents created) and returns its path.
    std::string file(const std::string& name, const std::string& bytes) const {
        const std::string path = tmp.file(name);
        std::filesystem::create_directories(std::filesystem::path(path).parent_path());
        test::write_text(path, bytes);
        return path;
    }
    // An empty DIR/name (removed first if present).
    std::string fresh_dir(const std::string& name) const {
        std::filesystem::remove_all(tmp.file(name));
        std::filesystem::create_directories(tmp.file(name));
        return tmp.file(name);
    }
    // fn must throw hs::Error; its message is kept (and returned).
    std::string error(const std::function<void()>& fn) {
        messages.push_back(test::error_of(fn));
        return messages.back();
    }
};

// core/io/safetensors.cpp: the file, its header, each entry, reads and writes.
void safetensors_errors(Hostile& h) {
    h.error([&] { SafetensorsFile::open(h.file("st/tiny.safetensors", "abc")); });
    h.error([&] { SafetensorsFile::open(h.tmp.file("absent.safetensors")); });
    h.error([&] { SafetensorsFile::open(h.tmp.str()); });
    // A FIFO and a device where a file is expected (core/io/atomic_file.cpp reads JSON).
    const std::string fifo = h.tmp.file("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    for (const std::string& special : {fifo, std::string("/dev/null")}) {
        h.error([&] { SafetensorsFile::open(special); });
        h.error([&] { read_json_file(special); });
    }
    h.error([&] { SafetensorsFile::open(h.file("st/long.safetensors", le64(1000) + std::string(12, ' '))); });
    const std::string huge = h.file("st/huge.safetensors", le64(150'000'000));
    std::filesystem::resize_file(huge, 150'000'100);  // sparse: the length fits, but is over the cap
    h.error([&] { SafetensorsFile::open(huge); });
    for (const char* header :
         {"{nope", "[1]", R"({"__metadata__": 1})", R"({"__metadata__": {"format": 1}})", R"({"w": 1})",
          R"({"w": {"dtype": "F32", "shape": [1]}})",
          R"({"w": {"dtype": 1, "shape": [1], "data_offsets": [0, 4]}})",
          R"({"w": {"dtype": "F8", "shape": [1], "data_offsets": [0, 1]}})",
          R"({"w": {"dtype": "F32", "shape": 1, "data_offsets": [0, 4]}})",
          R"({"w": {"dtype": "F32", "shape": [1.5], "data_offsets": [0, 4]}})",
          R"({"w": {"dtype": "F32", "shape": [18446744073709551615], "data_offsets": [0, 4]}})",
          R"({"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})",
          R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0]}})",
          R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [-4, 0]}})",
          R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [8, 4]}})",
          R"({"w": {"dtype": "F32", "shape": [4294967296, 4294967296, 16], "data_offsets": [0, 4]}})",
          R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}})",
          R"({"w": {"dtype": "F32", "shape": [8], "data_offsets": [0, 32]}})",
          R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
              "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})"}) {
        const std::string path = h.file("st/header.safetensors", safetensors_bytes(header, 16));
        h.error([&] { SafetensorsFile::open(path); });
    }

    const std::string header = R"({"f": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
        "i": {"dtype": "I64", "shape": [1], "data_offsets": [8, 16]},
        "c": {"dtype": "F32", "shape": [1, 1, 1], "data_offsets": [16, 20]},
        "r": {"dtype": "F32", "shape": [1, 2], "data_offsets": [20, 28]}})";
    const std::string path = h.file("st/read.safetensors", safetensors_bytes(header, 28));
    const auto file = SafetensorsFile::open(path);
    h.error([&] { file->info("absent"); });
    h.error([&] { file->matrix("i"); });
    h.error([&] { file->matrix("c"); });
    h.error([&] { file->vector("r"); });
    std::filesystem::resize_file(path, 8 + header.size() + 4);  // another program cut it short
    h.error([&] { file->values("r"); });

    const std::string out = h.tmp.file("written.safetensors");
    for (const std::vector<NamedTensor>& tensors :
         {std::vector<NamedTensor>{{"__metadata__", {1}, {0.0f}}},
          std::vector<NamedTensor>{{"a", {1}, {0.0f}}, {"a", {1}, {0.0f}}},
          std::vector<NamedTensor>{{"a", {-1}, {}}}, std::vector<NamedTensor>{{"a", {2}, {0.0f}}}})
        h.error([&] { write_safetensors(out, tensors); });
}

// core/io/model_dir.cpp, state_dict.cpp, json_file.cpp, hf_llama_dir.cpp and the
// config.json checks of core/model/config.cpp: a playground model directory.
void model_dir_errors(Hostile& h) {
    h.error([&] { open_source(h.fresh_dir("md/empty")); });
    const std::string dir = h.fresh_dir("md/config");
    for (const char* config :
         {"{", "[]", "{}", R"({"model_type": 7})", R"({"d_model": "8"})", R"({"d_model": 10000000000})",
          R"({"d_model": 8, "arch": 1})", R"({"d_model": 8, "norm_eps": "x"})", R"({"d_model": 8, "qkv_bias": 1})",
          R"({"d_model": 8, "seed": -1})", R"({"d_model": 8, "arch": "x"})", R"({"d_model": 8, "pe": "x"})",
          R"({"d_model": 8, "rope_layout": "x"})", R"({"d_model": 8, "norm": "x"})",
          R"({"d_model": 8, "norm_kind": "x"})", R"({"d_model": 8, "lm_head": "x"})",
          R"({"d_model": 8, "activation": "x"})", R"({"d_model": 8, "mask": "x"})", R"({"d_model": 50, "heads": 8})",
          R"({"d_model": 8, "heads": 2})"}) {
        h.file("md/config/config.json", config);
        h.error([&] { open_source(dir); });
    }
    std::filesystem::remove(dir + "/config.json");
    std::filesystem::create_directory(dir + "/config.json");
    h.error([&] { open_source(dir); });

    ModelConfig small;
    small.d_model = 8, small.heads = 2, small.layers = 1, small.d_ff = 8, small.vocab = 8, small.max_len = 8;
    const Model model = Model::random(small);
    const std::string saved = h.tmp.file("md/saved");
    save_model_dir(model, saved);
    const std::string weights = saved + "/model.safetensors";
    std::vector<NamedTensor> tensors = to_state_dict(small, model.weights());
    // One tensor missing, all but one missing, one and two too many.
    write_safetensors(weights, std::vector<NamedTensor>(tensors.begin(), tensors.end() - 1));
    h.error([&] { open_source(saved); });
    write_safetensors(weights, {tensors[0]});
    h.error([&] { open_source(saved); });
    for (const char* extra : {"extra", "another"}) {
        tensors.push_back({extra, {1}, {0.0f}});
        write_safetensors(weights, tensors);
        h.error([&] { open_source(saved); });
    }
    tensors.resize(tensors.size() - 2);
    tensors[0] = {tensors[0].name, {1}, {0.0f}};
    write_safetensors(weights, tensors);
    h.error([&] { open_source(saved); });
    std::filesystem::resize_file(weights, std::filesystem::file_size(weights) - 4);  // truncated
    h.error([&] { open_source(saved); });
    std::filesystem::remove(weights);
    std::filesystem::create_directory(weights);
    h.error([&] { open_source(saved); });

    // Saving: weights that do not fit their config, a config that is not Llama-shaped.
    h.error([&] { to_state_dict(small, ModelWeights{}); });
    ModelWeights bent = model.weights();
    bent.embed = Matrix::Zero(1, 1);
    h.error([&] { to_state_dict(small, bent); });
    h.error([&] { save_hf_llama_dir(model, h.tmp.file("md/llama")); });
    ModelConfig pre = small;
    pre.norm = NormPlacement::PreLN;  // with a final norm
    const Model pre_model = Model::random(pre);
    ModelWeights no_layers = pre_model.weights();
    no_layers.layers.clear();
    h.error([&] { to_state_dict(pre, ModelWeights{}); });
    h.error([&] { to_state_dict(small, pre_model.weights()); });
    h.error([&] { to_state_dict(pre, no_layers); });
    ModelConfig llama = pre;
    llama.arch = Arch::DecoderOnly, llama.mask = MaskKind::Causal, llama.norm_kind = NormKind::RMSNorm;
    llama.pe = PosEncoding::Rotary, llama.activation = Activation::SwiGLU, llama.mlp_bias = false;
    ModelWeights no_final_norm = Model::random(llama).weights();
    no_final_norm.final_norm.reset();
    h.error([&] { save_hf_llama_dir(Model(llama, no_final_norm), h.tmp.file("md/llama")); });
}

// core/formats/hf_config.cpp and hf_loader.cpp: a Hugging Face checkpoint.
void hf_errors(Hostile& h) {
    const json gpt2 = json::parse(R"({"model_type": "gpt2", "n_embd": 8, "n_head": 2, "n_layer": 1,
                                      "vocab_size": 8, "n_positions": 8})");
    const json bert = json::parse(R"({"model_type": "bert", "hidden_size": 8, "num_attention_heads": 2,
        "num_hidden_layers": 1, "vocab_size": 8, "intermediate_size": 8, "max_position_embeddings": 8})");
    const json llama = json::parse(R"({"model_type": "llama", "hidden_size": 8, "num_attention_heads": 2,
        "num_hidden_layers": 1, "intermediate_size": 8, "vocab_size": 8, "headscope_tokenizer": "playground"})");
    for (const json& config :
         {json::array(), json::object(), json{{"model_type", 1}}, json{{"model_type", "t5"}},
          json{{"model_type", "gpt2"}}, edited(gpt2, "/n_embd", -8), edited(gpt2, "/layer_norm_epsilon", "x"),
          edited(gpt2, "/layer_norm_epsilon", 1e300), edited(gpt2, "/scale_attn_weights", 1),
          edited(gpt2, "/activation_function", 1), edited(gpt2, "/n_head", 3),
          edited(gpt2, "/activation_function", "relu"),
          json{{"model_type", "gpt_neo"}, {"hidden_size", 8}, {"num_heads", 2}, {"num_layers", 1}, {"vocab_size", 8},
               {"attention_types", json::parse(R"([[["global", "local"], 1]])")}},
          edited(gpt2, "/scale_attn_by_inverse_layer_idx", true), edited(bert, "/hidden_act", "relu"),
          edited(bert, "/position_embedding_type", "relative_key"), edited(llama, "/num_key_value_heads", 3),
          edited(llama, "/head_dim", 3), edited(llama, "/hidden_act", "gelu"),
          edited(llama, "/rope_scaling", json{{"type", "dynamic"}}),
          edited(llama, "/rope_scaling", json{{"type", "linear"}, {"factor", 0.5}}), edited(llama, "/layer_types", json::array({"full_attention", "full_attention"})),
          edited(edited(llama, "/model_type", "gemma"), "/hidden_activation", "gelu"),
          edited(llama, "/layer_types", json::array({"chunked_attention"})), edited(edited(llama, "/model_type", "phi3"),
          "/partial_rotary_factor", 0.1), edited(edited(llama, "/model_type", "gpt_neox"), "/rotary_pct", 1.5),
          edited(llama, "/rope_scaling", 2), edited(llama, "/rope_scaling", json{{"rope_type", "llama3"}, {"factor", 0.5}}),
          edited(llama, "/mlp_bias", true)})
        h.error([&] { parse_hf_config(config, "/m/config.json"); });
    h.error([&] { load_hf_config(h.fresh_dir("hf/empty")); });
    h.error([&] { load_hf_model(h.file("hf/file", "")); });

    const std::string dir = h.fresh_dir("hf/llama");
    h.file("hf/llama/config.json", edited(llama, "/model_type", "t5").dump());
    h.error([&] { open_source(dir); });
    h.file("hf/llama/config.json", llama.dump());
    h.error([&] { open_source(dir); });
    h.file("hf/llama/pytorch_model.bin", "");
    h.error([&] { open_source(dir); });
    for (const char* header :
         {"{}", R"({"model.embed_tokens.weight": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}})",
          R"({"model.embed_tokens.weight": {"dtype": "I64", "shape": [8, 8], "data_offsets": [0, 512]}})"}) {
        h.file("hf/llama/model.safetensors", safetensors_bytes(header, 512));
        h.error([&] { open_source(dir); });
    }
    std::filesystem::remove(dir + "/model.safetensors");
    for (const char* index : {"{}", R"({"weight_map": {"t": 1}})", R"({"weight_map": {"t": "../t.safetensors"}})",
                              R"({"weight_map": {"t": "s.safetensors"}})", R"({"weight_map": {}})"}) {
        h.file("hf/llama/model.safetensors.index.json", index);
        h.error([&] { open_source(dir); });
    }
    h.file("hf/llama/s.safetensors", safetensors_bytes("{}"));
    h.file("hf/llama/model.safetensors.index.json", R"({"weight_map": {"t": "s.safetensors"}})");
    h.error([&] { open_source(dir); });
}

// core/tokenize: the tokenizer files of a Hugging Face directory, and one that does not
// fit its model (core/pretrained_source.cpp).
void tokenizer_errors(Hostile& h) {
    const auto load = [&](const std::vector<std::pair<std::string, std::string>>& files) {
        const std::string dir = h.fresh_dir("tok");
        for (const auto& [name, text] : files) h.file("tok/" + name, text);
        h.error([&] { load_hf_tokenizer(dir); });
    };
    const json bpe = json::parse(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
                                     "pre_tokenizer": {"type": "ByteLevel"}})");
    const json llama3 =
        json::parse(test::read_text(HEADSCOPE_SOURCE_DIR "/tests/fixtures/tokenizers/llama3_tiny/tokenizer.json"));
    const json special = json::parse(R"({"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>"}}]})");
    const auto special_ids = [&](const char* ids) {
        return edited(bpe, "/post_processor", edited(special, "/special_tokens/<s>/ids", json::parse(ids)));
    };
    for (const json& tokenizer :
         {json::array(), edited(bpe, "/model/type", "Unigram"), edited(bpe, "/model/vocab", json::array()),
          edited(bpe, "/model/vocab", json{{"a", "x"}}), edited(bpe, "/model/vocab", json{{"a", -1}}),
          edited(bpe, "/model/vocab", json{{"a", 1 << 23}}), edited(bpe, "/model/merges", json::object()),
          edited(bpe, "/model/merges", json::array({"a"})), edited(bpe, "/model/merges", json::array({1})),
          edited(bpe, "/model/byte_fallback", true), edited(bpe, "/model/continuing_subword_prefix", "##"),
          edited(bpe, "/pre_tokenizer", json::parse(R"({"type": "Split", "pattern": {"String": " "}})")),
          edited(bpe, "/pre_tokenizer",
                 json::parse(R"({"type": "Split", "pattern": {"Regex": "x"}, "behavior": "Removed"})")),
          edited(bpe, "/pre_tokenizer", json::parse(R"({"type": "Split", "pattern": {"Regex": "x"}})")),
          edited(bpe, "/pre_tokenizer", json{{"type", "Whitespace"}}),
          edited(bpe, "/pre_tokenizer", llama3["pre_tokenizer"]["pretokenizers"][0]),
          edited(bpe, "/normalizer", json{{"type", "Lowercase"}}),
          edited(bpe, "/added_tokens", json::parse(R"([{"id": "x", "content": "<s>"}])")),
          edited(bpe, "/added_tokens", json::parse(R"([{"id": -1, "content": "<s>"}])")),
          edited(bpe, "/added_tokens", json::parse(R"([{"id": 8388608, "content": "<s>"}])")),
          edited(bpe, "/added_tokens", json::parse(R"([{"id": 1}])")), edited(bpe, "/post_processor", special),
          special_ids(R"(["x"])"), special_ids("[-1]"), special_ids("[8388608]"),
          json::parse(R"({"model": {"type": "WordPiece", "vocab": {"[UNK]": 0}}, "normalizer": {"type": "NFC"}})"),
          json::parse(R"({"model": {"type": "WordPiece", "vocab": {"a": 0}}})")})
        load({{"tokenizer.json", tokenizer.dump()}});
    load({{"vocab.json", "[]"}, {"merges.txt", ""}});
    for (const char* id : {"\"x\"", "-1", "8388608"})
        load({{"vocab.json", std::string("{\"a\": ") + id + "}"}, {"merges.txt", ""}});
    load({{"vocab.json", R"({"a": 0})"}, {"merges.txt", "a b c\n"}});
    load({{"vocab.json", R"({"a": 0})"}, {"merges.txt", "#version: 0.2\n"}});
    load({{"vocab.json", "{}"}});
    load({{"merges.txt", ""}});
    load({});
    load({{"vocab.txt", ""}});
    load({{"vocab.txt", "a\n"}});
    h.error([&] { HfBpeTokenizer(edited(bpe, "/model/type", "WordPiece"), json(), "tokenizer.json"); });
    h.file("tok/tokenizer.json", bpe.dump());
    h.error([&] { load_hf_tokenizer(h.tmp.file("tok"))->encode("b"); });

    // A BERT checkpoint of 64 ids with a vocab.txt of 70.
    const std::string dir = h.fresh_dir("bert");
    for (const char* name : {"config.json", "model.safetensors"})
        std::filesystem::copy_file(std::string(HEADSCOPE_SOURCE_DIR "/tests/fixtures/hf/bert/") + name,
                                   dir + "/" + name);
    std::string vocab = "[UNK]\n";
    for (int i = 1; i < 70; ++i) vocab += "w" + std::to_string(i) + "\n";
    h.file("bert/vocab.txt", vocab);
    h.error([&] { open_source(dir); });
}

// core/formats/llama2c.cpp and core/tokenize/llama2c_tokenizer.cpp.
void llama2c_errors(Hostile& h) {
    // dim 2, hidden_dim 2, 1 layer, 1 head, 1 K/V head, vocab 2, seq_len 1: 40 floats.
    const std::string header = le32({2, 2, 1, 1, 1, 2, 1}), weights(40 * 4, '\0');
    for (const std::string& bin :
         {std::string("abc"), std::string(28, '\0'), le32({10, 4, 1, 3, 3, 4, 4}), le32({8, 4, 1, 4, 3, 4, 4}),
          le32({6, 4, 1, 2, 2, 4, 4}), header, header + weights + "1234"}) {
        const std::string path = h.file("l2c/bad.bin", bin);
        h.error([&] { open_source(path); });
    }
    h.error([&] { load_llama2c_model(h.tmp.file("absent.bin")); });
    const std::string model = h.file("l2c/ok/model.bin", header + weights);
    h.error([&] { open_source(model); });
    h.file("l2c/ok/tok1.bin", "");
    h.file("l2c/ok/tok2.bin", "");
    h.error([&] { open_source(model); });
    h.file("l2c/ok/tokenizer.bin", "ab");
    h.error([&] { open_source(model); });

    const std::string tok = h.tmp.file("l2c/ok/tokenizer.bin");
    h.error([&] { (void)Llama2cTokenizer(tok, 0); });
    h.error([&] { (void)Llama2cTokenizer(h.tmp.file("absent_tokenizer.bin"), 1); });
    for (const std::string& bytes :
         {le32({0}), le32({4}), le32({4, 0, 9}), le32({4, 0, 3}) + "a", le32({4, 0, 1}) + "a" + "xyz"}) {
        h.file("l2c/ok/tokenizer.bin", bytes);
        h.error([&] { (void)Llama2cTokenizer(tok, 1); });
    }
}

TEST(I18nMessages, EveryModelFileErrorHasATemplate) {
    Hostile h;
    safetensors_errors(h);
    model_dir_errors(h);
    hf_errors(h);
    tokenizer_errors(h);
    llama2c_errors(h);
    EXPECT_GE(std::set<std::string>(h.messages.begin(), h.messages.end()).size(), 160u);
    for (const std::string& m : h.messages) {
        const std::string zh = in_chinese(m);
        EXPECT_TRUE(zh != m && has_cjk(zh)) << "no Chinese template matches: " << m;
    }
}

TEST(I18nMessages, ModelFileErrorsKeepTheirPathsAndNumbers) {
    Hostile h;
    const std::string st = h.file("a.safetensors", le64(1000) + std::string(12, ' '));
    const std::string past = h.error([&] { SafetensorsFile::open(st); });
    ASSERT_EQ(past, st + ": header length 1000 runs past the end of the file (20 bytes, so at most 12 header bytes)");
    EXPECT_EQ(in_chinese(past), st + "：文件头长度 1000 超出了文件末尾（文件共 20 字节，文件头最多只能有 12 字节）");

    h.file("a.safetensors", safetensors_bytes(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                                                  "b c": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})", 12));
    const std::string overlap = h.error([&] { SafetensorsFile::open(st); });
    ASSERT_EQ(overlap, st + ": tensors 'a' [0, 8) and 'b c' [4, 12) overlap");
    EXPECT_EQ(in_chinese(overlap), st + "：张量“a” [0, 8) 与张量“b c” [4, 12) 重叠");

    // What follows ": " is translated in turn: the config check inside "invalid config".
    const std::string dir = h.fresh_dir("m");
    h.file("m/config.json", R"({"d_model": "8"})");
    const std::string config = h.error([&] { open_source(dir); });
    ASSERT_EQ(config, "invalid config in " + dir + "/config.json: config.json: 'd_model' must be an integer");
    EXPECT_EQ(in_chinese(config), dir + "/config.json 中的配置无效：config.json：“d_model”必须是整数");

    const std::string bin = h.file("m.bin", le32({2, 2, 1, 1, 1, 2, 1}));
    const std::string llama2c = h.error([&] { open_source(bin); });
    const std::string dims = "dim 2, hidden_dim 2, n_layers 1, n_heads 1, n_kv_heads 1, vocab_size 2, seq_len 1";
    ASSERT_EQ(llama2c, "llama2.c checkpoint '" + bin + "': the file is 28 bytes but its header (" + dims +
                           ") implies exactly 188 bytes (truncated download?)");
    EXPECT_EQ(in_chinese(llama2c),
              "llama2.c 检查点“" + bin + "”：文件有 28 字节，但按文件头（" + dims + "）应当正好是 188 字节（下载不完整？）");

    // A long list of names: the first five and how many more.
    EXPECT_EQ(in_chinese("/m/model.safetensors is missing 7 tensors this config needs: a, b, c, d, e, … (2 more)"),
              "/m/model.safetensors 缺少此配置所需的 7 个张量：a, b, c, d, e……（另有 2 个）");
    EXPECT_EQ(in_chinese("cannot read tensor 'w' of /m/a.safetensors: Input/output error"),
              "无法读取张量“w”（在 /m/a.safetensors 中）：Input/output error");

    // Errors that need a race, a failing disk or a rare kind of file, written out.
    for (const char* m :
         {"/m/a.safetensors changed while it was read: it ends before the header (another program truncated or "
          "rewrote it; open it again)",
          "/m/a.safetensors changed while it was read: it ends before the header length (another program truncated "
          "or rewrote it; open it again)",
          "cannot read the header length of /m/a.safetensors: Input/output error",
          "cannot read the header of /m/a.safetensors: Input/output error",
          "cannot stat /m/a.safetensors: Input/output error", "/m/a.safetensors is a socket, not a safetensors file",
          "/m/a.safetensors is a block device, not a safetensors file",
          "/m/a.safetensors is not a regular file, not a safetensors file",
          "cannot read /m/config.json: it is a socket, not a regular file",
          "cannot read /m/config.json: it is a block device, not a regular file",
          "cannot read /m/config.json: it is not a regular file",
          "/m/tokenizer.json holds more than 256 MiB, the limit for a file HeadScope reads",
          "llama2.c checkpoint '/m/a.bin': cannot be opened for reading",
          "llama2.c checkpoint '/m/a.bin': could not read wq",
          "BPE vocabulary token 'a' has negative id -1."}) {
        const std::string zh = in_chinese(m);
        EXPECT_TRUE(zh != m && has_cjk(zh)) << "no Chinese template matches: " << m;
    }
}

TEST(I18nMessages, AboutSaysInChineseWhatEachComponentIsFor) {
    for (const Component& c : core_components())
        EXPECT_TRUE(has_cjk(in_chinese(c.role))) << c.name << ": " << c.role;
}

TEST(I18nMessages, EveryEnglishSampleTitleHasAnEntry) {
    std::set<std::string_view> keys;
    for (const auto& [en, zh] : zh_cn_table()) keys.insert(en);
    const std::vector<Sample> samples = load_samples(HEADSCOPE_SOURCE_DIR "/assets/samples.json");
    ASSERT_GT(samples.size(), 20u);
    for (const Sample& s : samples)
        EXPECT_TRUE(has_cjk(s.title) || keys.count(s.title)) << "sample title \"" << s.title << "\"";
}

}  // namespace
}  // namespace hs
