// ModelConfig validation, names, playground specs and config.json.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/model/config.h"
#include "core/error.h"
#include "tests/test_util.h"

namespace hs {
namespace {

using test::expect_error;

TEST(ConfigValidation, DefaultConfigIsValid) { EXPECT_TRUE(validate(ModelConfig{}).empty()); }

TEST(ConfigValidation, DModelNotDivisibleByHeadsNamesBothNumbers) {
    ModelConfig c;
    c.d_model = 510;
    c.heads = 8;
    const auto problems = validate(c);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0], "d_model 510 is not divisible by 8 heads");
}

TEST(ConfigValidation, ReportsEveryProblemAtOnce) {
    ModelConfig c;
    c.d_model = 0;
    c.heads = 0;
    c.layers = 0;
    c.d_ff = -1;
    const auto problems = validate(c);
    EXPECT_EQ(problems.size(), 4u);
    try {
        ensure_valid(c);
        FAIL();
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("d_model 0 must be between 1 and"), std::string::npos) << m;
        EXPECT_NE(m.find("heads 0 must be at least 1"), std::string::npos) << m;
        EXPECT_NE(m.find("layers 0 must be between 1 and"), std::string::npos) << m;
        EXPECT_NE(m.find("; "), std::string::npos) << m;
    }
}

// d_ff defaults to 4·d_model: a bad d_model is named once, not again as a bad d_ff; a
// bad d_ff of a good d_model is still named.
TEST(ConfigValidation, ADerivedDffIsNotBlamedForABadDModel) {
    ModelConfig c;
    c.d_model = 0;
    c.d_ff = 0;
    auto problems = validate(c);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("d_model 0 must be between 1 and"), std::string::npos) << problems[0];
    c.d_model = 64;
    problems = validate(c);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("d_ff 0 must be between 1 and"), std::string::npos) << problems[0];
    // A d_model whose 4·d_model is beyond int: the default d_ff saturates, and is not blamed.
    const ModelConfig huge = parse_playground_spec("random:d_model=1000000000,heads=1");
    EXPECT_EQ(huge.d_ff, 2147483647);
    problems = validate(huge);
    ASSERT_EQ(problems.size(), 1u) << ::testing::PrintToString(problems);
    EXPECT_NE(problems[0].find("d_model 1000000000 must be between 1 and"), std::string::npos) << problems[0];
}

TEST(ConfigValidation, MoreHeadsThanDimensionsIsExplained) {
    ModelConfig c;
    c.d_model = 4;
    c.heads = 8;
    ASSERT_EQ(validate(c).size(), 1u);
    EXPECT_EQ(validate(c)[0], "8 heads is more than d_model 4 (each head needs at least one dimension)");
}

TEST(ConfigValidation, HugeModelsAreRefusedBeforeAllocation) {
    ModelConfig c;
    c.d_model = 8192;
    c.heads = 8;
    c.layers = 96;
    c.d_ff = 32768;
    ASSERT_EQ(validate(c).size(), 1u);
    EXPECT_NE(validate(c)[0].find("million parameters"), std::string::npos);
}

TEST(ConfigNames, RoundTripAndUnknownNamesListChoices) {
    for (Arch a : {Arch::EncoderOnly, Arch::DecoderOnly, Arch::EncoderDecoder})
        EXPECT_EQ(parse_arch(to_string(a)), a);
    EXPECT_EQ(parse_mask("causal"), MaskKind::Causal);
    EXPECT_EQ(parse_activation("gelu"), Activation::GELU);
    EXPECT_EQ(parse_norm_placement("pre-ln"), NormPlacement::PreLN);
    EXPECT_EQ(parse_pos_encoding("learned"), PosEncoding::Learned);
    try {
        parse_mask("triangle");
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "unknown mask 'triangle' (choose none, causal)");
    }
}

TEST(PlaygroundSpec, ParsesEveryKey) {
    const ModelConfig c = parse_playground_spec(
        "random:d_model=64,heads=4,layers=3,d_ff=100,vocab=500,max_len=77,seed=9,mask=causal,"
        "arch=encoder-decoder,pe=learned,norm=pre-ln,act=gelu");
    EXPECT_EQ(c.d_model, 64);
    EXPECT_EQ(c.heads, 4);
    EXPECT_EQ(c.layers, 3);
    EXPECT_EQ(c.d_ff, 100);
    EXPECT_EQ(c.vocab, 500);
    EXPECT_EQ(c.max_len, 77);
    EXPECT_EQ(c.seed, 9u);
    EXPECT_EQ(c.mask, MaskKind::Causal);
    EXPECT_EQ(c.arch, Arch::EncoderDecoder);
    EXPECT_EQ(c.pe, PosEncoding::Learned);
    EXPECT_EQ(c.norm, NormPlacement::PreLN);
    EXPECT_EQ(c.activation, Activation::GELU);
    EXPECT_EQ(parse_playground_spec(to_playground_spec(c)).d_ff, 100);
}

TEST(PlaygroundSpec, DecoderArchDefaultsToCausalAndDffToFourTimesDModel) {
    const ModelConfig c = parse_playground_spec("random:d_model=128,arch=decoder");
    EXPECT_EQ(c.mask, MaskKind::Causal);
    EXPECT_EQ(c.d_ff, 512);
    EXPECT_EQ(parse_playground_spec("random:arch=decoder,mask=none").mask, MaskKind::None);
}

// Overrides replace a base's keys and add new ones, with or without "random:" (train --spec).
TEST(PlaygroundSpec, MergeTakesOverridesWithOrWithoutThePrefix) {
    EXPECT_EQ(merge_playground_specs("random:heads=4,layers=2", "random:heads=8"), "random:heads=8,layers=2");
    EXPECT_EQ(merge_playground_specs("random:heads=4,layers=2", "seed=5,heads=2"), "random:heads=2,layers=2,seed=5");
    EXPECT_EQ(merge_playground_specs("random:heads=4", ""), "random:heads=4");
    EXPECT_THROW(merge_playground_specs("random:heads=4", "heads"), Error);
}

TEST(PlaygroundSpec, BadInputNamesTheKey) {
    auto message = [](const std::string& spec) -> std::string {
        try {
            parse_playground_spec(spec);
        } catch (const Error& e) {
            return e.what();
        }
        return "no error";
    };
    EXPECT_NE(message("random:foo=1").find("unknown key 'foo'"), std::string::npos);
    EXPECT_EQ(message("random:heads=eight"),
              "playground spec: 'heads' needs a whole number, got 'eight'");
    EXPECT_EQ(message("random:heads"), "playground spec: 'heads' is not key=value");
    EXPECT_NE(message("rand:d_model=4").find("must start with 'random:'"), std::string::npos);
}

TEST(ConfigJson, RoundTripKeepsEveryField) {
    ModelConfig c = parse_playground_spec("random:d_model=48,heads=6,layers=2,arch=decoder,pe=none,norm=pre-ln,act=gelu,seed=123");
    c.norm_eps = 1e-6f;
    const ModelConfig back = config_from_json(config_to_json(c));
    EXPECT_EQ(config_to_json(back), config_to_json(c));
}

TEST(ConfigJson, WrongTypesAreReported) {
    try {
        config_from_json(nlohmann::json{{"heads", "8"}});
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "config.json: 'heads' must be an integer");
    }
}

}  // namespace
}  // namespace hs

namespace hs {
namespace {

TEST(PlaygroundSpec, NumbersBeyondIntRangeAreRejectedNotWrapped) {
    try {
        parse_playground_spec("random:d_model=3000000000");
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "playground spec: 'd_model' = 3000000000 is out of range");
    }
    // A huge but int-sized d_model gives a saturated d_ff and a validation message.
    const ModelConfig c = parse_playground_spec("random:d_model=1000000000,heads=1");
    EXPECT_EQ(c.d_ff, 2147483647);
    EXPECT_FALSE(validate(c).empty());
}

TEST(ConfigJson, OutOfRangeIntegersAndNegativeSeedsAreRejected) {
    auto message = [](const nlohmann::json& j) -> std::string {
        try {
            config_from_json(j);
        } catch (const Error& e) {
            return e.what();
        }
        return "no error";
    };
    EXPECT_EQ(message({{"heads", 4294967298LL}}), "config.json: 'heads' = 4294967298 is out of range");
    EXPECT_EQ(message({{"seed", -1}}), "config.json: 'seed' must be a non-negative integer");
}

// The modern options turn an nn.Transformer block into a Llama block one key at a time.
TEST(PlaygroundSpec, ModernOptionsBuildALlamaBlock) {
    const ModelConfig c = parse_playground_spec(
        "random:arch=decoder,d_model=64,heads=8,kv_heads=2,pe=rope,norm=rmsnorm,act=swiglu,"
        "bias=0,theta=500000,rope=interleaved,lm_head=tied");
    EXPECT_EQ(c.kv_heads, 2);
    EXPECT_EQ(c.kv_head_count(), 2);
    EXPECT_EQ(c.pe, PosEncoding::Rotary);
    EXPECT_EQ(c.rope_layout, RopeLayout::Interleaved);
    EXPECT_FLOAT_EQ(c.rope_theta, 500000.0f);
    EXPECT_EQ(c.norm, NormPlacement::PreLN);
    EXPECT_EQ(c.norm_kind, NormKind::RMSNorm);
    EXPECT_EQ(c.activation, Activation::SwiGLU);
    EXPECT_FALSE(c.qkv_bias || c.out_bias || c.mlp_bias);
    EXPECT_EQ(c.lm_head, LmHead::Tied);
    EXPECT_TRUE(validate(c).empty());
    // The spec written back parses to the same config, and so does its JSON.
    EXPECT_EQ(parse_playground_spec(to_playground_spec(c)), c);
    EXPECT_EQ(config_from_json(config_to_json(c)), c);
    EXPECT_EQ(parse_playground_spec("random:norm=post-rmsnorm").norm, NormPlacement::PostLN);
    EXPECT_EQ(parse_playground_spec("random:act=gelu-tanh").activation, Activation::GELUTanh);
    // nn.Transformer-style specs keep writing exactly what they wrote before.
    EXPECT_EQ(to_playground_spec(parse_playground_spec("random:d_model=64,heads=4,layers=2")),
              "random:d_model=64,heads=4,layers=2,seed=0,arch=encoder,mask=none,pe=sinusoidal,"
              "norm=post-ln,act=relu");
}

TEST(PlaygroundSpec, OneKeyAtATimeReadsAsInASpec) {
    ModelConfig c = parse_playground_spec("random:d_model=64,heads=8,layers=2");
    set_spec_key(c, "norm", "rmsnorm");  // kind and placement, as Llama
    EXPECT_EQ(c.norm_kind, NormKind::RMSNorm);
    EXPECT_EQ(c.norm, NormPlacement::PreLN);
    set_spec_key(c, "kv_heads", "2");
    set_spec_key(c, "bias", "0");
    set_spec_key(c, "act", "swiglu");
    EXPECT_EQ(c.kv_heads, 2);
    EXPECT_FALSE(c.qkv_bias || c.out_bias || c.mlp_bias);
    EXPECT_EQ(c.activation, Activation::SwiGLU);
    EXPECT_EQ(c.d_ff, 256);  // untouched: only the key given changes
    set_spec_key(c, "arch", "encoder");
    EXPECT_EQ(c.arch, Arch::EncoderOnly);
    EXPECT_EQ(c.norm_kind, NormKind::RMSNorm);  // arch alone, not its defaults
    // The same config as the whole spec.
    const ModelConfig whole =
        parse_playground_spec("random:d_model=64,heads=8,layers=2,norm=rmsnorm,kv_heads=2,bias=0,act=swiglu,arch=encoder,d_ff=256");
    EXPECT_EQ(to_playground_spec(c), to_playground_spec(whole));
    EXPECT_THROW(set_spec_key(c, "colour", "red"), Error);
    EXPECT_THROW(set_spec_key(c, "norm", "batchnorm"), Error);
    EXPECT_THROW(set_spec_key(c, "heads", "many"), Error);
}

TEST(PlaygroundSpec, BadModernValuesNameTheKeyAndTheChoices) {
    const auto error = [](const std::string& spec) {
        try {
            parse_playground_spec(spec);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(error("random:bias=2"), "playground spec: 'bias' is 0 or 1, got '2'");
    EXPECT_EQ(error("random:norm=batchnorm"),
              "unknown norm 'batchnorm' (choose post-ln, pre-ln, rmsnorm, post-rmsnorm)");
    EXPECT_EQ(error("random:act=swish"),
              "unknown activation 'swish' (choose relu, gelu, gelu-tanh, swiglu, geglu)");
    EXPECT_EQ(error("random:pe=alibi"),
              "unknown positional encoding 'alibi' (choose sinusoidal, learned, rope, none)");
}

TEST(ConfigValidation, KvHeadsMustDivideHeadsAndRopeNeedsEvenHeads) {
    ModelConfig c;
    c.d_model = 24;
    c.heads = 8;  // d_k 3: odd
    c.kv_heads = 3;
    c.pe = PosEncoding::Rotary;
    const auto problems = validate(c);
    ASSERT_EQ(problems.size(), 2u);
    EXPECT_EQ(problems[0], "8 query heads cannot share 3 key/value heads evenly (heads must be a "
                           "multiple of kv_heads)");
    EXPECT_EQ(problems[1], "rotary positions need an even head size, but d_model / heads is 3");
}

// 64 / 3 is not a head size: that is reported once, as the divisibility problem, not also
// as an odd head size of 21; an explicit odd head_dim is named as such.
TEST(ConfigValidation, RopeNamesOnlyAWholeHeadSize) {
    ModelConfig c;
    c.d_model = 64;
    c.heads = 3;
    c.pe = PosEncoding::Rotary;
    EXPECT_EQ(validate(c), std::vector<std::string>{"d_model 64 is not divisible by 3 heads"});
    c.head_dim = 5;
    EXPECT_EQ(validate(c), std::vector<std::string>{"rotary positions need an even head size, but head_dim is 5"});
}

}  // namespace
}  // namespace hs

namespace hs {
namespace {

// The Model panel's heads −/+ visit only divisors of d_model (issue 15: 8 → 7 → 6 → 5
// were invalid splits before 4), and every value visited is a valid config.
TEST(StepHeads, VisitsOnlyDivisorsOfDModel) {
    EXPECT_EQ(step_heads(64, 8, -1), 4);
    EXPECT_EQ(step_heads(64, 4, -1), 2);
    EXPECT_EQ(step_heads(64, 1, -1), 1);  // nowhere lower
    EXPECT_EQ(step_heads(64, 8, +1), 16);
    EXPECT_EQ(step_heads(64, 64, +1), 64);  // nowhere higher
    EXPECT_EQ(step_heads(96, 8, -1), 6);
    EXPECT_EQ(step_heads(96, 7, +1), 8);  // a typed non-divisor steps to the nearest divisor
    EXPECT_EQ(step_heads(96, 7, -1), 6);
    EXPECT_EQ(step_heads(96, 200, -1), 96);
    std::vector<int> down;
    ModelConfig c;
    c.d_model = 48;
    for (int h = 48; h > 1;) {
        h = step_heads(c.d_model, h, -1);
        c.heads = h;
        EXPECT_TRUE(validate(c).empty()) << h;
        down.push_back(h);
    }
    EXPECT_EQ(down, (std::vector<int>{24, 16, 12, 8, 6, 4, 3, 2, 1}));
}

// Editing one field of a playground config: another architecture takes its mask (an
// encoder–decoder's decoder causal: it saw its future after a switch from an encoder),
// and d_model takes d_ff along while d_ff is 4·d_model (set d_model 8 kept d_ff 2048).
TEST(FollowEdit, ArchitectureSetsItsMaskAndDModelCarriesADefaultDff) {
    ModelConfig before = ModelConfig::defaults_for(Arch::EncoderOnly);
    ASSERT_EQ(before.mask, MaskKind::None);
    for (const auto& [arch, mask] : {std::pair{Arch::EncoderDecoder, MaskKind::Causal},
                                     std::pair{Arch::DecoderOnly, MaskKind::Causal}}) {
        ModelConfig after = before;
        after.arch = arch;
        follow_edit(before, after);
        EXPECT_EQ(after.mask, mask);
        ModelConfig back = after;
        back.arch = Arch::EncoderOnly;
        follow_edit(after, back);
        EXPECT_EQ(back.mask, MaskKind::None);
    }
    ModelConfig same_arch = before;  // a mask chosen by hand stays while the arch does
    same_arch.mask = MaskKind::Causal;
    follow_edit(before, same_arch);
    EXPECT_EQ(same_arch.mask, MaskKind::Causal);

    ASSERT_EQ(before.d_ff, 4 * before.d_model);
    ModelConfig small = before;
    small.d_model = 8;
    follow_edit(before, small);
    EXPECT_EQ(small.d_ff, 32);
    ModelConfig custom = before;  // a d_ff of the user's stays
    custom.d_ff = 100;
    ModelConfig custom_small = custom;
    custom_small.d_model = 8;
    follow_edit(custom, custom_small);
    EXPECT_EQ(custom_small.d_ff, 100);
}

// Sliding-window attention (window=W): a spec key, a config.json key, a causal mask only;
// a mask that stops being causal drops it.
TEST(PlaygroundSpec, SlidingWindowNeedsTheCausalMaskAndRoundTrips) {
    const ModelConfig c = parse_playground_spec("random:arch=decoder,d_model=32,heads=4,window=3");
    EXPECT_EQ(c.window, 3);
    EXPECT_TRUE(validate(c).empty());
    EXPECT_EQ(parse_playground_spec(to_playground_spec(c)), c);
    EXPECT_EQ(config_from_json(config_to_json(c)), c);
    EXPECT_EQ(config_to_json(c).at("window"), 3);
    EXPECT_FALSE(config_to_json(ModelConfig{}).contains("window"));  // older configs read the same
    ModelConfig encoder = parse_playground_spec("random:d_model=32,heads=4,window=3");
    ASSERT_EQ(encoder.mask, MaskKind::None);
    EXPECT_EQ(validate(encoder), std::vector<std::string>{
        "a sliding attention window needs the causal mask (each query sees the window of keys before it)"});
    ModelConfig negative = c;
    negative.window = -2;
    EXPECT_EQ(validate(negative), std::vector<std::string>{"the attention window -2 must be at least 1 (or 0: no window)"});
    ModelConfig unmasked = c;
    unmasked.mask = MaskKind::None;
    follow_edit(c, unmasked);
    EXPECT_EQ(unmasked.window, 0);
    EXPECT_TRUE(validate(unmasked).empty());
}

// GPT-Neo's options: window_layers=GL (a repeating pattern of global and local layers) and
// scale=S (the scores' factor; 0 is 1/√Dh): spec and config.json keys, each problem named.
TEST(PlaygroundSpec, LocalGlobalLayersAndScoreScaleRoundTripAndAreChecked) {
    const ModelConfig c =
        parse_playground_spec("random:arch=decoder,d_model=32,heads=4,layers=3,window=4,window_layers=GL,scale=1");
    EXPECT_EQ(c.window_layers, "GL");
    EXPECT_EQ(c.attn_scale, 1.0f);
    EXPECT_TRUE(validate(c).empty());
    EXPECT_EQ(c.window_of(0), 0);
    EXPECT_EQ(c.window_of(1), 4);
    EXPECT_EQ(c.window_of(2), 0);  // the pattern repeats
    EXPECT_EQ(parse_playground_spec(to_playground_spec(c)), c);
    EXPECT_EQ(config_from_json(config_to_json(c)), c);
    EXPECT_EQ(config_to_json(c).at("window_layers"), "GL");
    EXPECT_EQ(config_to_json(c).at("attn_scale"), 1.0);
    EXPECT_FALSE(config_to_json(ModelConfig{}).contains("attn_scale"));
    // The default scale is the paper's 1/√Dh (Dh = 8 here); a fraction round-trips exactly.
    EXPECT_EQ(parse_playground_spec("random:d_model=32,heads=4").score_scale(), 1.0f / std::sqrt(8.0f));
    const ModelConfig eighth = parse_playground_spec("random:d_model=32,heads=4,scale=0.125");
    EXPECT_NE(to_playground_spec(eighth).find(",scale=0.125"), std::string::npos);
    EXPECT_EQ(eighth.score_scale(), 0.125f);
    expect_error([] { parse_playground_spec("random:scale=-1"); }, {"'scale' needs a number of at least 0, got '-1'"});
    expect_error([] { parse_playground_spec("random:scale=x"); }, {"'scale' needs a number"});
    ModelConfig bad = c;
    bad.window_layers = "GLX";
    EXPECT_EQ(validate(bad), std::vector<std::string>{"the window's layer pattern \"GLX\" must be at most 1024 letters, "
                                                      "each L (local: the window) or G (global)"});
    bad = c;
    bad.attn_scale = 2000.0f;
    EXPECT_EQ(validate(bad), std::vector<std::string>{"the attention scale must be between 0 and 1000 (0: 1/√d_k)"});
    // A pattern without a window is named; turning the window off drops the pattern.
    bad = c;
    bad.window = 0;
    EXPECT_EQ(validate(bad), std::vector<std::string>{"a pattern of local and global layers needs an attention window"});
    follow_edit(c, bad);
    EXPECT_EQ(bad.window_layers, "");
    EXPECT_TRUE(validate(bad).empty());
}

// Gemma's options: act=geglu (a gated feed-forward: it has the gate projection, 3 d·d_ff
// matrices) and embed_scale=1, as spec and config.json keys.
TEST(PlaygroundSpec, GemmaOptionsRoundTrip) {
    const ModelConfig c =
        parse_playground_spec("random:arch=decoder,d_model=32,heads=4,norm=rmsnorm,pe=rope,act=geglu,embed_scale=1");
    EXPECT_EQ(c.activation, Activation::GeGLU);
    EXPECT_TRUE(is_gated(c.activation));
    EXPECT_FALSE(is_gated(Activation::GELUTanh));
    EXPECT_TRUE(c.embed_scale);
    EXPECT_TRUE(validate(c).empty());
    EXPECT_EQ(parse_playground_spec(to_playground_spec(c)), c);
    EXPECT_EQ(config_from_json(config_to_json(c)), c);
    EXPECT_EQ(config_to_json(c).at("activation"), "geglu");
    EXPECT_EQ(config_to_json(c).at("embed_scale"), true);
    EXPECT_FALSE(config_to_json(ModelConfig{}).contains("embed_scale"));
}

// Gemma 2 and 3's options (sandwich=1, softcap=C, logit_softcap=C, local_theta=B): spec
// and config.json keys, each problem named, and sandwich norms against the parallel block
// in an edit (the later choice wins).
TEST(PlaygroundSpec, Gemma2And3OptionsRoundTripAndAreChecked) {
    const ModelConfig c = parse_playground_spec(
        "random:arch=decoder,d_model=32,heads=4,norm=rmsnorm,pe=rope,act=geglu,sandwich=1,softcap=50,"
        "logit_softcap=30,window=4,window_layers=LLG,local_theta=10000,theta=1000000");
    EXPECT_TRUE(c.sandwich_norm);
    EXPECT_EQ(c.attn_softcap, 50.0f);
    EXPECT_EQ(c.logit_softcap, 30.0f);
    EXPECT_EQ(c.rope_local_theta, 10000.0f);
    EXPECT_TRUE(c.local_rope(0));
    EXPECT_FALSE(c.local_rope(2));
    EXPECT_TRUE(validate(c).empty());
    EXPECT_EQ(parse_playground_spec(to_playground_spec(c)), c);
    EXPECT_EQ(config_from_json(config_to_json(c)), c);
    EXPECT_EQ(config_to_json(c).at("attn_softcap"), 50.0);
    EXPECT_FALSE(config_to_json(ModelConfig{}).contains("sandwich_norm"));
    ModelConfig bad = c;
    bad.norm = NormPlacement::PostLN;
    bad.attn_softcap = -1.0f;
    bad.rope_local_theta = 0.5f;
    EXPECT_EQ(validate(bad), (std::vector<std::string>{
                                 "sandwich norms need pre-norm layers in a single stack, one sub-layer after the "
                                 "other (not parallel)",
                                 "soft-caps must be between 0.001 and 1000000 (or 0: none)",
                                 "the local layers' rope theta must be greater than 1 (or 0: rope theta)"}));
    ModelConfig tiny = c;  // a cap of 1e-40 would make 1 / cap infinite: refused
    tiny.logit_softcap = 1e-40f;
    EXPECT_EQ(validate(tiny), std::vector<std::string>{"soft-caps must be between 0.001 and 1000000 (or 0: none)"});
    ModelConfig enc_dec = c;  // an encoder's layers have no window: no local rope base
    enc_dec.arch = Arch::EncoderDecoder;
    enc_dec.sandwich_norm = false;
    EXPECT_EQ(validate(enc_dec), std::vector<std::string>{
                                     "a local layers' rope theta needs a single stack (an encoder's layers have no window)"});
    ModelConfig edited = c;  // parallel chosen after sandwich: sandwich goes
    edited.parallel_block = true;
    follow_edit(c, edited);
    EXPECT_TRUE(edited.parallel_block);
    EXPECT_FALSE(edited.sandwich_norm);
    ModelConfig back = edited;  // sandwich chosen again: parallel goes
    back.sandwich_norm = true;
    follow_edit(edited, back);
    EXPECT_TRUE(back.sandwich_norm);
    EXPECT_FALSE(back.parallel_block);
    ModelConfig post = c;  // post-norm drops the sandwich
    post.norm = NormPlacement::PostLN;
    follow_edit(c, post);
    EXPECT_FALSE(post.sandwich_norm);
}

// The GPT-NeoX and Qwen3 options (parallel=1, rotary_dims=R, qk_norm=1): spec and
// config.json keys, each problem named, and what an edit of another field implies.
TEST(PlaygroundSpec, NeoxAndQkNormOptionsRoundTripAndAreChecked) {
    const ModelConfig c =
        parse_playground_spec("random:arch=decoder,d_model=32,heads=4,pe=rope,norm=pre-ln,rotary_dims=4,parallel=1,qk_norm=1");
    EXPECT_EQ(c.rotary_dims, 4);
    EXPECT_EQ(c.rotary_dim_count(), 4);
    EXPECT_TRUE(c.parallel_block);
    EXPECT_TRUE(c.qk_norm);
    EXPECT_FALSE(c.heads_only_split());  // γ of Dh: another head count needs new weights
    EXPECT_TRUE(validate(c).empty());
    EXPECT_EQ(parse_playground_spec(to_playground_spec(c)), c);
    EXPECT_EQ(config_from_json(config_to_json(c)), c);
    ModelConfig odd = c;
    odd.rotary_dims = 3;
    EXPECT_EQ(validate(odd), std::vector<std::string>{"rotary dims 3 must be even and at most the head size 8 (or 0: all of it)"});
    ModelConfig post = c;
    post.norm = NormPlacement::PostLN;
    EXPECT_EQ(validate(post), std::vector<std::string>{
        "attention and feed-forward side by side (parallel) need pre-norm layers in a single stack"});
    follow_edit(c, post);
    EXPECT_FALSE(post.parallel_block);
    ModelConfig many_heads = c;  // Dh 32/16 = 2 < rotary_dims 4: the whole head turns
    many_heads.heads = 16;
    follow_edit(c, many_heads);
    EXPECT_EQ(many_heads.rotary_dims, 0);
    EXPECT_TRUE(validate(many_heads).empty());
}

}  // namespace
}  // namespace hs
