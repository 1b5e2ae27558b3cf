// Token labels a reader can find the sentence in (core/image/token_words): words joined from
// subword pieces, byte-fallback runs shown as the characters they spell. The token lists
// are stories260K's own (headscope tokenize --pieces), the expectations written by hand.
#include <gtest/gtest.h>

#include "core/image/token_words.h"

namespace hs {
namespace {

using TokenList = std::vector<std::string>;

// "a little girl named Lily. She liked red 😀 مرحبا" on stories260K.
const TokenList kStoriesTokens = {"<s>",    " a",     " little", " g",      "ir",     "l",      " named", " Lily",
                         ".",      " She",   " li",     "ked",     " r",     "ed",     " ",      "<0xF0>",
                         "<0x9F>", "<0x98>", "<0x80>",  " ",       "<0xD9>", "<0x85>", "<0xD8>", "<0xB1>",
                         "<0xD8>", "<0xAD>", "<0xD8>", "<0xA8>",  "<0xD8>", "<0xA7>"};

TEST(TokenWords, JoinsSubwordPiecesIntoTheWordsOfTheSentence) {
    const TokenWords w = token_words(kStoriesTokens);
    ASSERT_EQ(w.pieces.size(), kStoriesTokens.size());
    const TokenList words = {"<s>", "a", "little", "girl", "named", "Lily.", "She", "liked", "red", "😀", "مرحبا"};
    EXPECT_EQ(w.words, words);
    // " g" "ir" "l" are one word, starting at token 3; "." has no start mark, so it ends
    // "Lily." as the text's spaces do.
    EXPECT_EQ(w.word_of[3], 3);
    EXPECT_EQ(w.word_of[4], 3);
    EXPECT_EQ(w.word_of[5], 3);
    EXPECT_EQ(w.word_first[3], 3);
    EXPECT_EQ(w.pieces[4], "ir");
}

TEST(TokenWords, ByteRunsShowTheCharactersTheySpell) {
    const TokenWords w = token_words(kStoriesTokens);
    for (int i = 15; i <= 18; ++i) EXPECT_EQ(w.pieces[static_cast<std::size_t>(i)], "😀") << i;  // F0 9F 98 80
    EXPECT_EQ(w.pieces[20], "م");  // D9 85 = U+0645
    EXPECT_EQ(w.pieces[21], "م");
    EXPECT_EQ(w.pieces[22], "ر");  // D8 B1 = U+0631
    EXPECT_EQ(w.pieces[29], "ا");  // D8 A7 = U+0627
    EXPECT_EQ(w.pieces[14], "␣");  // the lone space mark before the emoji stays visible
}

TEST(TokenWords, BytesThatSpellNoCharacterStayBytes) {
    // A cut sequence (E4 B8 without its third byte), a stray continuation byte (0x80), an
    // overlong "/" (C0 AF) and a surrogate (ED A0 80) are no characters: shown as bytes.
    EXPECT_EQ(spelled_characters({0xE4, 0xB8}), (TokenList{"", ""}));
    EXPECT_EQ(spelled_characters({0x80, 0x41}), (TokenList{"", "A"}));
    EXPECT_EQ(spelled_characters({0xC0, 0xAF}), (TokenList{"", ""}));
    EXPECT_EQ(spelled_characters({0xED, 0xA0, 0x80}), (TokenList{"", "", ""}));
    EXPECT_EQ(spelled_characters({0x0A, 0xE4, 0xB8, 0xAD}), (TokenList{"\\n", "中", "中", "中"}));
    const TokenWords w = token_words({"<s>", "▁", "<0xE4>", "<0xB8>"});
    EXPECT_EQ(w.pieces[2], "<0xE4>");
    EXPECT_EQ(w.words.back(), "<0xE4><0xB8>");
}

TEST(TokenWords, ByteLevelTokensThatContinueACharacterShowIt) {
    // GPT-2 splits 中 (E4 B8 AD) as "中" (its first bytes, shown whole) and "<0xAD>", and 😀
    // (F0 9F 98 80) as "😀" + "<0x98><0x80>": the further bytes show the character and add
    // nothing to the word.
    const TokenWords w = token_words({"The", "Ġ中", "<0xAD>", "文", "Ġ😀", "<0x98><0x80>"});
    EXPECT_EQ(w.pieces[2], "中");
    EXPECT_EQ(w.pieces[5], "😀");
    EXPECT_EQ(w.words, (TokenList{"The", "中", "文", "😀"}));  // a CJK character starts a word
    EXPECT_TRUE(continues_a_character("<0x98><0x80>"));
    EXPECT_FALSE(continues_a_character("<0xE4>"));  // a lead byte
    EXPECT_FALSE(continues_a_character("<0x98>x"));
}

TEST(TokenWords, LabelsFarApartShowWordsAtWordStarts) {
    const TokenWords w = token_words(kStoriesTokens);
    EXPECT_EQ(thinned_label(w, 3, 1), " g");     // every row labelled: the piece
    EXPECT_EQ(thinned_label(w, 3, 4), "girl");   // every 4th: the word it starts
    EXPECT_EQ(thinned_label(w, 4, 4), "ir");     // inside a word (a forced label): the piece
    EXPECT_EQ(thinned_label(w, 15, 4), "😀");
    ASSERT_NE(enclosing_word(w, 4, "ir"), nullptr);
    EXPECT_EQ(*enclosing_word(w, 4, "ir"), "girl");
    EXPECT_EQ(enclosing_word(w, 2, " little"), nullptr);  // " little" is its word
    ASSERT_NE(enclosing_word(w, 16, "<0x9F>"), nullptr);
    EXPECT_EQ(*enclosing_word(w, 16, "<0x9F>"), "😀");    // the emoji's second byte
}

TEST(TokenWords, OtherTokenizersMarks) {
    // GPT-2's Ġ, WordPiece's ##, a tokenizer with no marks (every token a word), and none.
    EXPECT_EQ(token_words({"The", "Ġcat", "s", "Ġsat"}).words, (TokenList{"The", "cats", "sat"}));
    EXPECT_EQ(token_words({"[CLS]", "play", "##ing", "[SEP]"}).words, (TokenList{"[CLS]", "playing", "[SEP]"}));
    EXPECT_EQ(token_words({"我", "喜", "欢"}).words, (TokenList{"我", "喜", "欢"}));
    EXPECT_TRUE(token_words({}).words.empty());
}

}  // namespace
}  // namespace hs
