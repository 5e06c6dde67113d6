package com.example

import scala.concurrent.{ExecutionContext, Future}
import scala.util.{Failure, Success, Try}

final case class User(id: Long, name: String, email: Option[String] = None)

trait Repo[F[_]] {
  def find(id: Long): F[Option[User]]
}

class Service(repo: Repo[Future])(implicit ec: ExecutionContext) {
  def greeting(id: Long): Future[String] =
    repo.find(id).map {
      case Some(User(_, name, _)) => s"Hello, $name"
      case None                   => "Who?"
    }

  def parse(s: String): Either[String, Int] =
    Try(s.toInt) match {
      case Success(n) if n >= 0 => Right(n)
      case Success(_)           => Left("negative")
      case Failure(e)           => Left(e.getMessage)
    }
}

object Service {
  val Default = 42
}
