// Word-word attention from token-token attention (core/analysis/word_maps), Clark et al.
// 2019: pieces aligned to the annotated words, maps merged; expectations by hand.
#include <gtest/gtest.h>

#include "core/analysis/word_maps.h"
#include "core/error.h"

namespace hs {
namespace {

using Words = std::vector<std::string>;

TEST(AlignPieces, SubwordPiecesSpellTheAnnotatedWords) {
    // stories260K reads "a little girl ." as <s> " a" " little" " g" "ir" "l" ".".
    const auto a = align_pieces({"<s>", " a", " little", " g", "ir", "l", "."}, {"a", "little", "girl", "."});
    ASSERT_TRUE(a);
    EXPECT_EQ(*a, (std::vector<int>{-1, 0, 1, 2, 2, 2, 3}));
    // GPT-2's Ġ, WordPiece's ##, SentencePiece's ▁.
    EXPECT_EQ(*align_pieces({"The", "Ġcat", "s"}, {"The", "cats"}), (std::vector<int>{0, 1, 1}));
    EXPECT_EQ(*align_pieces({"[CLS]", "play", "##ing"}, {"playing"}), (std::vector<int>{-1, 0, 0}));
    EXPECT_FALSE(align_pieces({"▁我", "喜欢"}, {"我", "喜", "欢"}));  // "喜欢" spans two words
}

TEST(AlignPieces, BytesAndBareSpacesJoinTheirWords) {
    // "猫 跑" on an English model: " " + E7 8C AB, " " + E8 B7 91 (猫 U+732B, 跑 U+8DD1).
    const auto a = align_pieces({"<s>", " ", "<0xE7>", "<0x8C>", "<0xAB>", " ", "<0xE8>", "<0xB7>", "<0x91>"}, {"猫", "跑"});
    ASSERT_TRUE(a);
    EXPECT_EQ(*a, (std::vector<int>{-1, 0, 0, 0, 0, 1, 1, 1, 1}));
}

TEST(AlignPieces, SpecialTokensAtEitherEndAreLeftOut) {
    // BERT's [CLS] … [SEP], T5's </s>; GPT-2's continuation bytes join their character's word.
    EXPECT_EQ(*align_pieces({"[CLS]", "play", "##ing", "[SEP]"}, {"playing"}), (std::vector<int>{-1, 0, 0, -1}));
    EXPECT_EQ(*align_pieces({"▁a", "▁cat", "</s>"}, {"a", "cat"}), (std::vector<int>{0, 1, -1}));
    EXPECT_EQ(*align_pieces({"Ġ中", "<0xAD>", "文"}, {"中", "文"}), (std::vector<int>{0, 0, 1}));
    EXPECT_FALSE(align_pieces({"zz", "▁a"}, {"a"}));  // a stray token before the text is not special
}

TEST(AlignPieces, AnotherTextDoesNotAlign) {
    EXPECT_FALSE(align_pieces({"<s>", " a", " dog"}, {"a", "cat"}));
    EXPECT_FALSE(align_pieces({"<s>", " a"}, {"a", "cat"}));  // words left over
    EXPECT_FALSE(align_pieces({"<s>", " <unk>"}, {"zzz"}));
}

TEST(WordMap, SumsOverKeyPiecesAndAveragesOverQueryPieces) {
    // Tokens: BOS, "g", "ir", "l" (word 0 = girl), "." (word 1).
    Matrix a(5, 5);
    a << 1.0f, 0.0f, 0.0f, 0.0f, 0.0f,   //
        0.5f, 0.5f, 0.0f, 0.0f, 0.0f,    //
        0.2f, 0.4f, 0.4f, 0.0f, 0.0f,    //
        0.1f, 0.3f, 0.2f, 0.4f, 0.0f,    //
        0.1f, 0.2f, 0.1f, 0.3f, 0.3f;
    const Matrix w = word_map(a, {-1, 0, 0, 0, 1}, 2);
    // girl → girl: mean over rows 1–3 of (cols 1 + 2 + 3) = (0.5 + 0.8 + 0.9) / 3 = 2.2 / 3.
    EXPECT_FLOAT_EQ(w(0, 0), 2.2f / 3.0f);
    EXPECT_FLOAT_EQ(w(0, 1), 0.0f);
    EXPECT_FLOAT_EQ(w(1, 0), 0.6f);  // . → girl: 0.2 + 0.1 + 0.3
    EXPECT_FLOAT_EQ(w(1, 1), 0.3f);
    EXPECT_THROW(word_map(a, {0, 0}, 1), Error);
}

}  // namespace
}  // namespace hs
