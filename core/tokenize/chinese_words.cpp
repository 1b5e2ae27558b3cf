#include "core/tokenize/chinese_words.h"

namespace hs {

const std::vector<std::string>& known_chinese_words() {
    // The default grammar's words of two or more characters, in UTF-8 byte order.
    static const std::vector<std::string> kWords = {
        "买了", "便宜", "公园", "写字", "出生", "叫了", "可爱", "后来", "唱歌", "回家", "好看", "学校",
        "学生", "孩子", "安静", "小明", "小红", "帮了", "开车", "张伟", "所以", "旁边", "有趣", "朋友",
        "李娜", "李雷", "桌子", "椅子", "游泳", "漂亮", "王强", "王芳", "画画", "看书", "睡了", "红色",
        "老师", "见了", "认识", "跳舞", "踢球", "送的", "那些", "韩梅", "飞了", "高兴"};
    return kWords;
}

}  // namespace hs
