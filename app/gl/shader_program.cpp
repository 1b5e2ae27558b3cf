#include "app/gl/shader_program.h"

#include <utility>
#include <vector>

#include "core/error.h"

namespace hs {
namespace {

std::string shader_log(GLuint shader) {
    GLint length = 0;
    glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
    std::vector<char> log(static_cast<std::size_t>(length > 1 ? length : 1), '\0');
    glGetShaderInfoLog(shader, length, nullptr, log.data());
    return log.data();
}

GLuint compile(GLenum stage, const std::string& name, const std::string& defines) {
    std::string source = embedded_shader(name);
    if (source.empty()) throw Error("shader " + name + " is not embedded in the binary.");
    if (!defines.empty()) {
        const std::size_t eol = source.find('\n');  // after "#version …"
        source.insert(eol == std::string::npos ? source.size() : eol + 1, defines);
    }
    GLuint shader = glCreateShader(stage);
    const char* text = source.c_str();
    glShaderSource(shader, 1, &text, nullptr);
    glCompileShader(shader);
    GLint ok = 0;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        const std::string log = shader_log(shader);
        glDeleteShader(shader);
        throw Error("shader " + name + " failed to compile: " + log);
    }
    return shader;
}

}  // namespace

ShaderProgram::ShaderProgram(const std::string& vertex_name, const std::string& fragment_name,
                             const std::string& defines) {
    const GLuint vs = compile(GL_VERTEX_SHADER, vertex_name, defines);
    const GLuint fs = compile(GL_FRAGMENT_SHADER, fragment_name, defines);
    program_ = glCreateProgram();
    glAttachShader(program_, vs);
    glAttachShader(program_, fs);
    glLinkProgram(program_);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(program_, GL_LINK_STATUS, &ok);
    if (!ok) {
        GLint length = 0;
        glGetProgramiv(program_, GL_INFO_LOG_LENGTH, &length);
        std::vector<char> log(static_cast<std::size_t>(length > 1 ? length : 1), '\0');
        glGetProgramInfoLog(program_, length, nullptr, log.data());
        glDeleteProgram(program_);
        program_ = 0;
        throw Error("shader program " + vertex_name + " + " + fragment_name +
                    " failed to link: " + std::string(log.data()));
    }
}

ShaderProgram::~ShaderProgram() {
    if (program_) glDeleteProgram(program_);
}

ShaderProgram::ShaderProgram(ShaderProgram&& other) noexcept
    : program_(std::exchange(other.program_, 0)) {}

ShaderProgram& ShaderProgram::operator=(ShaderProgram&& other) noexcept {
    if (this != &other) {
        if (program_) glDeleteProgram(program_);
        program_ = std::exchange(other.program_, 0);
    }
    return *this;
}

}  // namespace hs
